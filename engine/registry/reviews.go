package registry

import "strings"

// ReviewsFile is the File of the Reviews: what a definition that tries to
// take one of their names is told holds it.
const ReviewsFile = BuiltinFilePrefix + "reviews"

// Reviews are kube-apiserver's virtual, create-only review resources
// (SelfSubjectReview, the SubjectAccessReviews, SelfSubjectRulesReview),
// which the server answers with handlers (engine/httpapi) and never
// stores, so no snapshot serves them. Every load claims their names
// before any definition's, built-in kinds' included: a definition file
// or CustomResourceDefinition in their groups cannot take them and pass
// for them in discovery. Each call returns new Resources.
func Reviews() []*Resource {
	review := func(group, kind, plural string, namespaced bool) *Resource {
		return &Resource{Group: group, Kind: kind, Plural: plural, Singular: strings.ToLower(kind), Namespaced: namespaced, File: ReviewsFile}
	}
	return []*Resource{
		review("authentication.k8s.io", "SelfSubjectReview", "selfsubjectreviews", false),
		review("authorization.k8s.io", "LocalSubjectAccessReview", "localsubjectaccessreviews", true),
		review("authorization.k8s.io", "SelfSubjectAccessReview", "selfsubjectaccessreviews", false),
		review("authorization.k8s.io", "SelfSubjectRulesReview", "selfsubjectrulesreviews", false),
		review("authorization.k8s.io", "SubjectAccessReview", "subjectaccessreviews", false),
	}
}

// claimReviews registers the names of the Reviews, in a load that serves
// the built-in kinds (a definition checked on its own is not compared
// with them either: a CustomResourceDefinition that names a review, as
// one that names a built-in kind, is stored, and its status says why it
// is not served).
func (l *loader) claimReviews() {
	if l.opts.WithoutBuiltins {
		return
	}
	for _, r := range Reviews() {
		l.names.add(r)
	}
}
