package resource

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"testing"
)

// contracts are, per operation, the facts the verb sets before the stages
// run (create: no stored object, Old nil; delete: stored, its body the
// Object) and the ones the store reads after them.
var contracts = map[Operation]struct{ inputs, store fact }{
	CreateOperation: {factBody | factOld, factMeta | factAuthorized | factManaged | factAdmissionValidated},
	UpdateOperation: {factBody | factOld, factAuthorized | factCompared | factManaged | factGeneration | factAdmissionValidated},
	DeleteOperation: {factOld | factDeleteOptions, factPending | factAdmissionValidated},
}

// factNames name the facts, in the order of their bits.
var factNames = []string{"body", "old", "deleteOptions", "decoded", "meta", "storable", "propagated",
	"prepared", "pending", "admitted", "ruled", "validated", "authorized", "compared", "managed", "generation",
	"mutated", "admissionValidated"}

func (f fact) String() string {
	var names []string
	for ; f != 0; f &= f - 1 {
		i := bits.TrailingZeros32(uint32(f))
		if i >= len(factNames) {
			names = append(names, fmt.Sprintf("fact(1<<%d)", i))
			continue
		}
		names = append(names, factNames[i])
	}
	return strings.Join(names, ", ")
}

// checkOrder reports the first row of table that reads a fact neither an
// input of its operation nor written by an earlier row, a fact written
// twice for one operation, and a fact the store reads that no row writes.
func checkOrder(table []stage) error {
	for _, op := range []Operation{CreateOperation, UpdateOperation, DeleteOperation} {
		c, name := contracts[op], opNames[op]
		known := c.inputs
		for _, st := range table {
			if st.ops&op == 0 {
				continue
			}
			if missing := st.reads &^ known; missing != 0 {
				return fmt.Errorf("%s: stage %q reads %v, which no earlier stage writes", name, st.name, missing)
			}
			if twice := st.writes & known; twice != 0 {
				return fmt.Errorf("%s: stage %q writes %v, written before it", name, st.name, twice)
			}
			known |= st.writes
		}
		if missing := c.store &^ known; missing != 0 {
			return fmt.Errorf("%s: the store reads %v, which no stage writes", name, missing)
		}
	}
	return nil
}

var opNames = map[Operation]string{CreateOperation: "create", UpdateOperation: "update", DeleteOperation: "delete"}

// moved is table with its row from moved to to.
func moved(table []stage, from, to int) []stage {
	out := slices.Clone(table)
	st := out[from]
	out = slices.Delete(out, from, from+1)
	return slices.Insert(out, to, st)
}

// rowOf is the index of the row name that runs for op.
func rowOf(t *testing.T, name string, op Operation) int {
	t.Helper()
	i := slices.IndexFunc(stages, func(st stage) bool { return st.name == name && st.ops&op != 0 })
	if i < 0 {
		t.Fatalf("no stage %q for %s", name, opNames[op])
	}
	return i
}

// TestStageOrder: every row of the pipeline comes after the rows that
// write what it reads, and the check fails when a row is moved ahead of
// one of them: for each row that reads a fact a stage writes, moved to the
// front, and for the moves a newcomer might try.
func TestStageOrder(t *testing.T) {
	if len(factNames) != bits.Len32(uint32(factAdmissionValidated)) {
		t.Fatalf("factNames has %d names for %d facts", len(factNames), bits.Len32(uint32(factAdmissionValidated)))
	}
	if err := checkOrder(stages); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		table []stage
	}{
		{"generation ahead of managedFields", moved(stages, rowOf(t, "generation", UpdateOperation), rowOf(t, "managedFields", UpdateOperation))},
		{"managedFields ahead of compare", moved(stages, rowOf(t, "managedFields", UpdateOperation), rowOf(t, "compare", UpdateOperation))},
		{"compare ahead of admit", moved(stages, rowOf(t, "compare", UpdateOperation), rowOf(t, "admit", UpdateOperation))},
		{"admit ahead of strategy", moved(stages, rowOf(t, "admit", CreateOperation), rowOf(t, "strategy", CreateOperation))},
		{"strategy ahead of storable", moved(stages, rowOf(t, "strategy", CreateOperation), rowOf(t, "storable", CreateOperation))},
		{"delete strategy ahead of propagation", moved(stages, rowOf(t, "strategy", DeleteOperation), rowOf(t, "propagation", DeleteOperation))},
		{"mutating admission after metadata", moved(stages, rowOf(t, "mutatingAdmission", CreateOperation), rowOf(t, "metadata", UpdateOperation))},
		{"validating admission ahead of strategy validation", moved(stages, rowOf(t, "validatingAdmission", CreateOperation), rowOf(t, "strategyValidation", CreateOperation))},
		{"validating admission of an update ahead of generation", moved(stages, rowOf(t, "validatingAdmission", UpdateOperation), rowOf(t, "generation", UpdateOperation))},
		{"validating admission of a delete ahead of mutating", moved(stages, rowOf(t, "validatingAdmission", DeleteOperation), rowOf(t, "mutatingAdmission", DeleteOperation))},
		{"compare dropped", slices.Delete(slices.Clone(stages), rowOf(t, "compare", UpdateOperation), rowOf(t, "compare", UpdateOperation)+1)},
	}
	for i, st := range stages {
		if st.reads&^(contracts[CreateOperation].inputs|contracts[UpdateOperation].inputs|contracts[DeleteOperation].inputs) != 0 {
			tests = append(tests, struct {
				name  string
				table []stage
			}{fmt.Sprintf("%s (row %d) first", st.name, i), moved(stages, i, 0)})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkOrder(tt.table)
			if err == nil {
				t.Fatal("the moved table passes the check")
			}
			t.Log(err)
		})
	}
}
