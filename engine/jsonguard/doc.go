// Package jsonguard keeps what PostgreSQL's jsonb cannot store out of
// dynapi's objects, the way kube-apiserver's decoder would treat it.
//
// Normalize rewrites a request body as Go's (and so kube-apiserver's) JSON
// decoder reads it: each byte that is not UTF-8 and each lone UTF-16
// surrogate escape becomes U+FFFD. Unstorable lists, with their field
// paths, the values that remain and that jsonb refuses: the character
// U+0000 in a string or key, and numbers outside the range of a float64
// (which kube-apiserver decodes numbers into) or of PostgreSQL's numeric.
// Both are pure and run in time linear in the size of the document.
package jsonguard
