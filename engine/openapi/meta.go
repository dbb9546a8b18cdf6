package openapi

// The metadata schemas every document refers to, trimmed to the fields
// dynapi keeps (kube-apiserver publishes the same names).
const objectMetaSchema = `{"type":"object","description":"ObjectMeta is metadata that all persisted resources must have.",
"properties":{
"name":{"type":"string","description":"Name must be unique within a namespace."},
"generateName":{"type":"string","description":"Optional prefix used by the server to generate a unique name."},
"namespace":{"type":"string","description":"Namespace defines the space within which each name must be unique."},
"uid":{"type":"string","description":"UID is the unique in time and space value for this object. Set by the server."},
"resourceVersion":{"type":"string","description":"An opaque value that represents the internal version of this object. Set by the server."},
"generation":{"type":"integer","format":"int64","description":"A sequence number representing a specific generation of the desired state."},
"creationTimestamp":{"type":"string","format":"date-time","description":"When this object was created. Set by the server."},
"deletionTimestamp":{"type":"string","format":"date-time","description":"When this object will be deleted; set when deletion is requested and finalizers remain."},
"deletionGracePeriodSeconds":{"type":"integer","format":"int64"},
"labels":{"type":"object","additionalProperties":{"type":"string"},"description":"Map of string keys and values that can be used to organize and categorize objects."},
"annotations":{"type":"object","additionalProperties":{"type":"string"},"description":"Unstructured key value map stored with a resource."},
"finalizers":{"type":"array","items":{"type":"string"},"description":"Must be empty before the object is deleted from the registry."},
"ownerReferences":{"type":"array","items":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},
"managedFields":{"type":"array","items":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}`

const listMetaSchema = `{"type":"object","description":"ListMeta describes metadata that synthetic resources must have.",
"properties":{"resourceVersion":{"type":"string"},"continue":{"type":"string"},"remainingItemCount":{"type":"integer","format":"int64"}}}`

const statusSchema = `{"type":"object","description":"Status is a return value for calls that don't return other objects.",
"properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"status":{"type":"string"},"message":{"type":"string"},
"reason":{"type":"string"},"code":{"type":"integer","format":"int32"},"details":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}`
