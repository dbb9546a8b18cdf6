// Package patch applies JSON merge patches (RFC 7386, as kube-apiserver
// merges them), strategic merge patches and JSON patches (RFC 6902) to
// objects held as JSON bytes. It is pure: no I/O, no registry, no store;
// what an algorithm needs of a kind (the schema a strategic merge reads
// its list keys from, the bound on what a JSON patch may copy) is an
// argument. Errors are engine.Errors with kube-apiserver's codes and words,
// so that the pipeline returns them as they are.
//
// The merge patch is a walk on the bytes that copies what the patch does
// not reach; TestMergePatch and FuzzMergePatch hold it to
// evanphx/json-patch's MergePatch, which kube-apiserver runs.
package patch
