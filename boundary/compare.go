package boundary

import (
	"fmt"
	"reflect"
	"slices"
	"text/template"
)

// Functions that compare strings: what they return depends on whether two of their strings
// are equal. A tenant string equal to the template's "metrics" is one key (or item) with it in
// A and, as a stand-in, one of its own in B; a second tenant string that injects a key or an
// item evens the count, and the comparison, which pairs B's nodes with A's in order, would
// then pass the injected one as the first one's (a review's attack through set, 2026-11-27;
// dict, merge and uniq are the same).
//
// So what they found equal is a decision, like a branch: A records which of its items, keys or
// sources it found equal to another (only where it found any: most calls find none), and B,
// whose stand-ins are never equal to the template's strings, takes A's answer instead of its
// own. Where B must name a key of its own map that A found (set into a map holding the key,
// merge, omit, pick, get), it takes the one that is A's once its stand-ins are put back; where
// there is none (A's key was the tenant's string transformed, `upper`), B cannot follow A and
// departs, and the check refuses. A list of the functions is exhaustive over the functions a
// template has: TestComparingFunctionsAreAllNumbered holds every function of the template set
// that compares values to be here, or known not to compare.
var comparing = map[string]bool{
	"dict": true, "uniq": true, "mustUniq": true, "without": true, "mustWithout": true,
	"has": true, "mustHas": true, "omit": true, "pick": true, "get": true, "hasKey": true,
	"compact": true, "mustCompact": true, "dig": true, "pluck": true,
	"merge": true, "mergeOverwrite": true, "mustMerge": true, "mustMergeOverwrite": true,
}

// comparePrefix starts the names RewriteDecisions gives the comparing functions.
const comparePrefix = "gantryCompared_"

// ComparingFuncs is the list of comparing functions (for tests).
func ComparingFuncs() []string {
	var names []string
	for n := range comparing {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// CompareFuncs binds the numbered comparing functions to d, over the execution's own (fn
// returns the execution's function of a name).
func (d *Decider) CompareFuncs(fn func(name string) any) template.FuncMap {
	f := template.FuncMap{}
	for name := range comparing {
		f[comparePrefix+name] = d.compared(name, fn(name))
	}
	f[keyAt], f[holdAt] = d.Key, d.Hold
	return f
}

// taken is a record of comparisons that only A writes, and only where it found something
// equal: recording, it records vs if there are any; replaying, it returns A's record at id if
// A's next decision is id's (nil if not). Two calls at one site are always apart by another
// decision (a loop iteration, an include, a template call), so a record at id is this call's.
func (d *Decider) taken(id int, vs []int64) []int64 {
	switch {
	case !d.started:
		return vs
	case !d.replaying:
		if len(vs) > 0 {
			d.log = append(d.log, int64(id), int64(len(vs)))
			d.log = append(d.log, vs...)
		}
		return vs
	case d.departed:
		return nil
	}
	at := d.at
	if at+2 > len(d.replay) || d.replay[at] != int64(id) {
		return nil
	}
	n := int(d.replay[at+1])
	if n < 1 || at+2+n > len(d.replay) {
		d.departed = true
		return nil
	}
	d.at = at + 2 + n
	got := d.replay[at+2 : d.at]
	d.used = append(d.used, int64(id), int64(n))
	d.used = append(d.used, got...)
	return got
}

// compared wraps a comparing function: its arguments are the call site's number and the
// function's own.
func (d *Decider) compared(name string, fn any) any {
	v := reflect.ValueOf(fn)
	t := v.Type()
	in := []reflect.Type{reflect.TypeFor[int]()}
	for i := range t.NumIn() {
		in = append(in, t.In(i))
	}
	out := make([]reflect.Type, t.NumOut())
	for i := range out {
		out[i] = t.Out(i)
	}
	call := func(args []reflect.Value) []reflect.Value {
		if t.IsVariadic() {
			return v.CallSlice(args)
		}
		return v.Call(args)
	}
	merging := name == "merge" || name == "mergeOverwrite" || name == "mustMerge" || name == "mustMergeOverwrite"
	return reflect.MakeFunc(reflect.FuncOf(in, out, t.IsVariadic()), func(args []reflect.Value) []reflect.Value {
		id, args := int(args[0].Int()), args[1:]
		if !d.started || d.sub == nil {
			return call(args)
		}
		if merging {
			return d.merge(id, args, call)
		}
		res := call(args)
		if len(res) == 2 && !res[1].IsNil() {
			return res
		}
		switch name {
		case "uniq", "mustUniq", "without", "mustWithout", "compact", "mustCompact":
			res[0] = d.dropped(id, args[0], res[0])
		case "has", "mustHas":
			res[0] = reflect.ValueOf(d.taken(id, truth(res[0].Bool())) != nil)
		case "hasKey":
			res[0] = reflect.ValueOf(d.taken(id, truth(res[0].Bool())) != nil)
		case "dict":
			res[0] = d.dict(id, args[0], res[0])
		case "get":
			res[0] = d.get(id, args[0].Interface().(map[string]any), args[1].String(), res[0])
		case "dig":
			res[0] = d.dig(id, args[0].Interface().([]any), res[0])
		case "pluck":
			res[0] = d.pluck(id, args[0].String(), args[1].Interface().([]map[string]any), res[0])
		case "omit", "pick":
			res[0] = d.picked(id, name == "pick", args[0].Interface().(map[string]any), args[1].Interface().([]string), res[0])
		}
		return res
	}).Interface()
}

// following reports whether the render takes A's answers: B's or C's, replaying A's record. A
// render with stand-ins that decides by its own data (the search for a culprit's, the tpl
// guard's) answers and records as A does.
func (d *Decider) following() bool { return d.standIns && d.replaying }

func truth(b bool) []int64 {
	if b {
		return []int64{1}
	}
	return nil
}

// dropped is uniq's or without's result: A records the places of the items it dropped (its
// result is the rest, in order); B drops the items at A's places.
func (d *Decider) dropped(id int, list, res reflect.Value) reflect.Value {
	list = reflect.Indirect(list)
	if list.Kind() == reflect.Interface {
		list = list.Elem()
	}
	if list.Kind() != reflect.Slice && list.Kind() != reflect.Array {
		return res
	}
	n := list.Len()
	if !d.following() {
		if res.Len() == n {
			return res
		}
		// The result is the list without some items, in order, and no dropped item equals a
		// kept one it would be taken for: a greedy match finds them.
		var places []int64
		j := 0
		for i := range n {
			if j < res.Len() && reflect.DeepEqual(list.Index(i).Interface(), res.Index(j).Interface()) {
				j++
				continue
			}
			places = append(places, int64(i))
		}
		d.taken(id, places)
		return res
	}
	places := d.taken(id, nil)
	kept := make([]any, 0, n-len(places))
	next := 0
	for i := range n {
		if next < len(places) && places[next] == int64(i) {
			next++
			continue
		}
		kept = append(kept, list.Index(i).Interface())
	}
	if next < len(places) {
		d.departed = true // A dropped an item B's list does not have
		return res
	}
	return reflect.ValueOf(kept)
}

// dict: A records, for each pair whose key an earlier pair had, the two pairs' places; B puts
// such a pair's value under the earlier pair's key, as A did.
func (d *Decider) dict(id int, pairs, res reflect.Value) reflect.Value {
	kv := pairs.Interface().([]any)
	n := (len(kv) + 1) / 2
	m := res.Interface().(map[string]any)
	if !d.following() {
		if len(m) == n {
			return res
		}
		first := make(map[string]int, n)
		var same []int64
		for p := range n {
			k := strval(kv[2*p])
			if q, ok := first[k]; ok {
				same = append(same, int64(p), int64(q))
				continue
			}
			first[k] = p
		}
		d.taken(id, same)
		return res
	}
	same := d.taken(id, nil)
	if len(same) == 0 && len(m) == n {
		return res
	}
	keyOf := make([]string, n)
	for p := range n {
		keyOf[p] = strval(kv[2*p])
	}
	for i := 0; i+1 < len(same); i += 2 {
		p, q := same[i], same[i+1]
		if p < 0 || p >= int64(n) || q < 0 || q >= p {
			d.departed = true
			return res
		}
		keyOf[p] = keyOf[q]
	}
	out := make(map[string]any, n)
	for p := range n {
		var val any = ""
		if 2*p+1 < len(kv) {
			val = kv[2*p+1]
		}
		out[keyOf[p]] = val
	}
	if len(out) != n-len(same)/2 {
		d.departed = true // B's keys are equal where A's were not
		return res
	}
	return reflect.ValueOf(out)
}

// strval is sprig's: how dict makes a key of any value.
func strval(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case error:
		return v.Error()
	case fmt.Stringer:
		return v.String()
	default:
		return fmt.Sprintf("%v", v)
	}
}

// sameKey is B's key of m that A found as k: k itself, or the one key of m whose stand-ins put
// back make what k's make.
func (s *Substitution) sameKey(m map[string]any, k string) (string, bool) {
	if _, ok := m[k]; ok {
		return k, true
	}
	want, _ := s.Restore(k)
	found, n := "", 0
	for mk := range m {
		if r, _ := s.Restore(mk); r == want {
			found, n = mk, n+1
		}
	}
	return found, n == 1
}

// get: A records that it found the key; B takes the value of the key it finds as A's, or
// nothing where A found nothing.
func (d *Decider) get(id int, m map[string]any, k string, res reflect.Value) reflect.Value {
	if !d.following() {
		_, ok := m[k]
		d.taken(id, truth(ok))
		return res
	}
	var v any = ""
	if d.taken(id, nil) != nil {
		key, ok := d.sub.sameKey(m, k)
		if !ok {
			d.departed = true
			return res
		}
		v = m[key]
	}
	return reflect.ValueOf(&v).Elem()
}

// dig: A records that it found the whole path of keys; B takes the value under its keys that
// are A's, or the default where A found nothing (sprig's dig: keys…, default, map).
func (d *Decider) dig(id int, ps []any, res reflect.Value) reflect.Value {
	if !d.following() {
		var found bool
		if m, ok := ps[len(ps)-1].(map[string]any); ok {
			found = true
			for i, k := range ps[:len(ps)-2] {
				ks, _ := k.(string)
				v, ok := m[ks]
				if !ok {
					found = false
					break
				}
				if i < len(ps)-3 {
					m, _ = v.(map[string]any)
				}
			}
		}
		d.taken(id, truth(found))
		return res
	}
	v := ps[len(ps)-2]
	if d.taken(id, nil) != nil {
		m, _ := ps[len(ps)-1].(map[string]any)
		for i, k := range ps[:len(ps)-2] {
			ks, _ := k.(string)
			key, ok := d.sub.sameKey(m, ks)
			if !ok {
				d.departed = true
				return res
			}
			v = m[key]
			if i < len(ps)-3 {
				m, _ = v.(map[string]any)
			}
		}
	}
	return reflect.ValueOf(&v).Elem()
}

// pluck: A records which maps held the key; B takes the value of its key that is A's from
// each of them.
func (d *Decider) pluck(id int, k string, ms []map[string]any, res reflect.Value) reflect.Value {
	if !d.following() {
		var found []int64
		for i, m := range ms {
			if _, ok := m[k]; ok {
				found = append(found, int64(i))
			}
		}
		d.taken(id, found)
		return res
	}
	found := d.taken(id, nil)
	out := make([]any, 0, len(found))
	for _, i := range found {
		if i < 0 || i >= int64(len(ms)) {
			d.departed = true
			return res
		}
		key, ok := d.sub.sameKey(ms[i], k)
		if !ok {
			d.departed = true
			return res
		}
		out = append(out, ms[i][key])
	}
	return reflect.ValueOf(out)
}

// Hold is gantryHold: it keeps what the builtin index is given, for Key.
func (d *Decider) Hold(m any) any {
	d.held = append(d.held, m)
	return m
}

// Key is the key the builtin index looks up (`index .Values.sizes .Values.size` becomes
// `index (gantryHold .Values.sizes) (gantryKey N .Values.size)`): A records that the map has
// it; B looks up its key that is A's, or, where A found nothing, a key the map cannot have.
func (d *Decider) Key(id int, k any) any {
	var m any
	if n := len(d.held); n > 0 {
		m, d.held = d.held[n-1], d.held[:n-1]
	}
	mm, isMap := m.(map[string]any)
	ks, isString := k.(string)
	if !isMap || !isString || !d.started || d.sub == nil {
		return k
	}
	if !d.following() {
		_, ok := mm[ks]
		d.taken(id, truth(ok))
		return k
	}
	if d.taken(id, nil) == nil {
		for _, ok := mm[ks]; ok; _, ok = mm[ks] {
			ks += "\x00" // not A's key: index finds nothing, as A's did
		}
		return ks
	}
	key, ok := d.sub.sameKey(mm, ks)
	if !ok {
		d.departed = true
	}
	return key
}

// picked is omit's or pick's result: A records which of the keys it was given the map held;
// B omits or picks its keys that are A's.
func (d *Decider) picked(id int, pick bool, m map[string]any, keys []string, res reflect.Value) reflect.Value {
	if !d.following() {
		var found []int64
		for i, k := range keys {
			if _, ok := m[k]; ok {
				found = append(found, int64(i))
			}
		}
		d.taken(id, found)
		return res
	}
	found := d.taken(id, nil)
	chosen := make(map[string]bool, len(found))
	for _, i := range found {
		if i < 0 || i >= int64(len(keys)) {
			d.departed = true
			return res
		}
		key, ok := d.sub.sameKey(m, keys[i])
		if !ok {
			d.departed = true
			return res
		}
		chosen[key] = true
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if chosen[k] == pick {
			out[k] = v
		}
	}
	return reflect.ValueOf(out)
}

// merge: A records how many keys of the sources, in merge order and deeply, it found already
// in the destination (see shadow); B, whose source keys may be stand-ins for A's, merges each
// under the key of the destination that is A's (sameKey) and must find as many.
func (d *Decider) merge(id int, args []reflect.Value, call func([]reflect.Value) []reflect.Value) []reflect.Value {
	dst, _ := args[0].Interface().(map[string]any)
	srcs, _ := args[1].Interface().([]map[string]any)
	if !d.following() {
		n := (&shadow{m: dst}).mergeAll(srcs, nil)
		d.taken(id, countOf(n))
		return call(args)
	}
	renamed := slices.Clone(srcs)
	n := (&shadow{m: dst}).mergeAll(renamed, d)
	if want := d.taken(id, nil); (want == nil && n != 0) || (want != nil && (len(want) != 1 || want[0] != int64(n))) {
		d.departed = true
	}
	return call([]reflect.Value{args[0], reflect.ValueOf(renamed)})
}

func countOf(n int) []int64 {
	if n == 0 {
		return nil
	}
	return []int64{int64(n)}
}

// shadow is the keys a map has during a merge into it: its own and those the merge added,
// without changing it (the merge itself is the function's, after).
type shadow struct {
	m     map[string]any
	added map[string]*shadow // keys added, and the maps under m's keys, as shadows
}

// mergeAll counts the keys of srcs found in s as mergo merges them (one source after another,
// into the maps under keys both have). With d (B), a source key not in s whose stand-ins put
// back make one of s's is renamed to it, in a copy of its source (srcs[i] is replaced).
func (s *shadow) mergeAll(srcs []map[string]any, d *Decider) int {
	n := 0
	for i, src := range srcs {
		c, renamed := s.mergeOne(src, d)
		n += c
		srcs[i] = renamed
	}
	return n
}

func (s *shadow) mergeOne(src map[string]any, d *Decider) (int, map[string]any) {
	n := 0
	out := src
	for k, v := range src {
		key := k
		child, ok := s.child(k)
		if !ok && d != nil {
			if k2, found := s.sameKey(k, d); found {
				key, ok = k2, true
				child, _ = s.child(k2)
				if sameMap(out, src) {
					out = cloneMap(src)
				}
				delete(out, k)
				out[key] = v
			}
		}
		if !ok {
			if s.added == nil {
				s.added = map[string]*shadow{}
			}
			vm, _ := v.(map[string]any)
			s.added[key] = &shadow{m: vm}
			continue
		}
		n++
		if vm, isMap := v.(map[string]any); isMap && (child.m != nil || child.added != nil) {
			c, merged := child.mergeOne(vm, d)
			n += c
			if !sameMap(merged, vm) {
				if sameMap(out, src) {
					out = cloneMap(src)
				}
				out[key] = merged
			}
		}
	}
	return n, out
}

// child is the shadow under key k, and whether s has k.
func (s *shadow) child(k string) (*shadow, bool) {
	if c, ok := s.added[k]; ok {
		return c, true
	}
	v, ok := s.m[k]
	if !ok {
		return nil, false
	}
	if s.added == nil {
		s.added = map[string]*shadow{}
	}
	vm, _ := v.(map[string]any)
	c := &shadow{m: vm}
	s.added[k] = c
	return c, true
}

// sameKey is s's one key whose stand-ins put back make what k's make.
func (s *shadow) sameKey(k string, d *Decider) (string, bool) {
	want, _ := d.sub.Restore(k)
	found, n := "", 0
	try := func(mk string) {
		if r, _ := d.sub.Restore(mk); r == want && mk != found {
			found, n = mk, n+1
		}
	}
	for mk := range s.m {
		try(mk)
	}
	for mk := range s.added {
		if _, inM := s.m[mk]; !inM {
			try(mk)
		}
	}
	return found, n == 1
}

func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func cloneMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
