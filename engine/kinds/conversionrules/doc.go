// Package conversionrules serves ConversionRules (dynapi.dev/v1alpha1), the
// conversion rules of one kind created through the API instead of as a file
// in conversions/: its spec is the document a rules file holds.
//
// The kind is a built-in definition file
// (engine/builtin/definitions/dynapi.dev/conversionrules.yaml); its objects
// are stored and served by the common pipeline. Its Strategy checks and
// proves the rules on every write, as `dynapi check` does a rules file
// (registry.Resource.WithRules, then prove.Kind): rules that do not fit the
// kind's schemas, or lose a field on a round trip, are refused with a 422
// naming the rule and the field, and nothing is stored.
//
// Each dynapi process runs one Controller, which lists the objects, then
// watches them, and hands their rules to the process's registry reloader
// (Definitions.SetAPIConversions), which swaps a whole new snapshot in, as
// a file reload does; so rules created through any process convert on
// every process sharing the database. Then it writes each object's Active
// condition: True when its rules convert the kind; False when a rules file
// for the same kind wins (OverriddenByFile), when the kind is not served
// (KindNotServed), when the rules no longer fit the kind's schemas
// (Refused), or when the kind serves on with its previous definition and
// rules because a change was refused (NotApplied).
//
//	POST /apis/dynapi.dev/v1alpha1/conversionrules
//	  → Strategy (check, prove) → Store → watch event (every process)
//	  → Controller → Definitions.SetAPIConversions (a new snapshot)
//	  → Active condition → UpdateStatus
package conversionrules
