package controllers

import (
	"encoding/json"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// The rendered objects' cache holds each object compacted: its apiVersion, kind and metadata
// (managedFields reduced to what create.go needs) as a map, as the informer's indexes, the
// label selectors and the event handlers read them, and everything else (spec, status, data, …) as one JSON string.
// A Deployment as the API server returns it is 11.4 KB on the heap decoded as an unstructured
// map and 4.8 KB compacted (measured with runtime.MemStats over 4,000 copies); the cache of
// rendered objects was half the controller's live heap (docs/performance.md, "Issue 22:
// memory"). A reconcile expands the few objects of its Gateway (tracker.owned), so that drift
// repair, .Resources and health see every field as before.
//
// Written by hand because no library keeps part of an unstructured object serialized: the
// informer's transform is the place controller-runtime offers, and it takes any function.

// compactKey holds the serialized rest of a compacted object, as a json.Number: decoding JSON
// into an unstructured object never makes one (integers become int64, other numbers float64),
// so a compacted object is told from any object, even one with a field of this name, and
// unstructured's deep copy passes it on as the string it is.
const compactKey = "gantry.dev/compact"

// entriesKey holds, inside the compacted JSON, the managedFields entries createdEntries keeps;
// expand puts them back into metadata. A key with a slash: no API object has such a field
// beside apiVersion, kind and metadata.
const entriesKey = "gantry.dev/managedFields"

// compactRendered is the rendered cache's transform: managedFields dropped, but for what
// upgradeCreated needs of an object Gantry created and has not written since
// (createdEntries, kept in the JSON), and the object compacted. Anything that is not an object (a tombstone) is left alone.
func compactRendered(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	if _, done := u.Object[compactKey].(json.Number); done {
		return u, nil // already compacted: the transform may see an object twice
	}
	out, rest := map[string]any{}, map[string]any{}
	if meta, ok := u.Object["metadata"].(map[string]any); ok {
		if kept := createdEntries(meta); kept != nil {
			rest[entriesKey] = kept
		}
		delete(meta, "managedFields")
	}
	for k, v := range u.Object {
		if k == "apiVersion" || k == "kind" || k == "metadata" {
			out[k] = v
		} else {
			rest[k] = v
		}
	}
	if len(rest) == 0 {
		return u, nil
	}
	raw, err := json.Marshal(rest)
	if err != nil {
		return nil, fmt.Errorf("compact %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	out[compactKey] = json.Number(raw)
	return &unstructured.Unstructured{Object: out}, nil
}

// expand turns a compacted object, a copy the cache handed out, back into the object the API
// server returned (managedFields reduced). Numbers come back as the watch decoded them: int64
// for integers, float64 otherwise.
func expand(u *unstructured.Unstructured) error {
	raw, ok := u.Object[compactKey].(json.Number)
	if !ok {
		return nil
	}
	var rest map[string]any
	if err := utiljson.Unmarshal([]byte(raw), &rest); err != nil {
		return fmt.Errorf("expand %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	delete(u.Object, compactKey)
	maps.Copy(u.Object, rest)
	if kept, ok := u.Object[entriesKey]; ok {
		delete(u.Object, entriesKey)
		if meta, ok := u.Object["metadata"].(map[string]any); ok {
			meta["managedFields"] = kept
		}
	}
	return nil
}
