// Package satoken issues and verifies service-account tokens as
// kube-apiserver does: JWTs signed with the server's key (RS256 or ES256,
// the key's id kube's hash of its public key), carrying the issuer, the
// audiences, an expiry, a JTI and the "kubernetes.io" claims that bind
// the token to its ServiceAccount's uid. A token is valid while its
// ServiceAccount exists with that uid: deleting and re-creating the
// ServiceAccount kills every token issued before. It publishes the keys
// that verify the tokens as kube's OIDC discovery documents, so that other
// systems can verify them too.
//
// It is the one owner of the JOSE library (go-jose, kube's own): no other
// package signs or parses these tokens.
package satoken
