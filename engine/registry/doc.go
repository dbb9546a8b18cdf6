// Package registry loads API definitions from files into an immutable
// Snapshot: which groups, versions and resources exist, their names, scope,
// schemas (compiled once), printer columns, subresources, selectable fields
// and conversion rules (parsed and checked against the schemas once, see
// package convert and conversions/README.md). Handlers look resources up in
// a Snapshot; a reload builds a new one with LoadWith, from the one it
// replaces, so that a file that breaks leaves its previous definitions
// serving (package reload does this as files change).
//
// A definition file holds one or more YAML or JSON documents separated by
// "---" lines, each in one of two formats.
//
// An apiextensions.k8s.io/v1 CustomResourceDefinition is read as projects
// publish it, and held to kube-apiserver's rules (metadata.name must be
// <plural>.<group>; the group must contain a dot). Its status is ignored, and
// so is spec.conversion: conversion rules live in conversions/.
//
// The native format is the same information without the CRD wrapping:
//
//	group: shop.example.com   # required; "" is the core group, served under /api
//	kind: Widget              # upper-case first, letters and digits
//	listKind: WidgetList      # default: kind + "List"
//	plural: widgets           # the name in URLs
//	singular: widget          # default: kind in lower case
//	shortNames: [wg]
//	categories: [all]
//	scope: Namespaced         # or Cluster
//	versions:                 # in any order; served in Kubernetes' version priority order
//	- name: v1
//	  served: true            # default true (a CRD's default is false)
//	  storage: true           # exactly one version is the storage version
//	  schema:                 # a CRD's openAPIV3Schema, as it is
//	    type: object
//	    properties:
//	      spec:
//	        type: object
//	        properties: {color: {type: string}, replicas: {type: integer}}
//	      status:
//	        type: object
//	        properties: {replicas: {type: integer}}
//	  printerColumns:         # a CRD's additionalPrinterColumns
//	  - {name: Color, type: string, jsonPath: .spec.color}
//	  subresources:
//	    status: {}
//	    scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
//	  selectableFields: [.spec.color]   # or, as in a CRD: [{jsonPath: .spec.color}]
//	- name: v1beta1
//	  deprecated: true
//	  deprecationWarning: use v1 # only for deprecated versions; absent: Kubernetes' default text
//	  schema: {type: object}
//
// Unknown fields are refused everywhere but inside schemas. Both formats
// follow kube-apiserver's naming rules, and names must be unique within a
// group across all definitions: no resource's plural, singular, kind,
// listKind or short name may equal another's (compared in lower case).
// The same kind in two groups is fine.
package registry
