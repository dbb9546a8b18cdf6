package crd

// CRDJSON is crdJSON, for the tests of package crd_test.
var CRDJSON = crdJSON
