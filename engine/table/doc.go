// Package table renders objects as a meta.k8s.io Table, the representation
// `kubectl get` asks for with
// "Accept: application/json;as=Table;v=v1;g=meta.k8s.io".
//
// It does what kube-apiserver does for custom resources
// (apiextensions-apiserver's tableconvertor and the apiserver's asTable): a
// Name column first, then the version's printer columns (or a single Age
// column when there are none), cells evaluated with client-go's JSONPath
// semantics and typed as cellForJSONValue types them, and each row's object
// reduced according to includeObject.
//
// Objects stay bytes: columns are compiled once per request into steps walked
// with gjson, and a list is written row by row (Header, AppendRow, Footer) so
// that it streams from storage to the socket without being held in memory.
package table
