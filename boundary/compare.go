package boundary

import (
	"cmp"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strconv"
	"strings"
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
// departs, and the check refuses. TestEveryFunctionIsClassified (package render) holds every
// function a template can call to be numbered (NumberedFuncs) or listed there with what it
// does instead, so that a function added to the set is looked at.
var comparing = map[string]bool{
	"dict": true, "uniq": true, "mustUniq": true, "without": true, "mustWithout": true,
	"has": true, "mustHas": true, "omit": true, "pick": true, "get": true, "hasKey": true,
	"compact": true, "mustCompact": true, "dig": true, "pluck": true, "index": true,
	// Orders: B's stand-ins sort elsewhere among the template's words than A's strings, and
	// keys gives a map's keys in random order.
	"sortAlpha": true, "keys": true,
	"merge": true, "mergeOverwrite": true, "mustMerge": true, "mustMergeOverwrite": true,
	// Choices made by a value's truth, as or's: B's stand-in for a tenant bool is its opposite
	// and for a number never zero, so B would choose otherwise.
	"default": true, "coalesce": true,
	// Counts, as until's: where a slice starts and ends, how large chunk's pieces are.
	"slice": true, "mustSlice": true, "chunk": true, "mustChunk": true, "repeat": true,
	// Structure read from text: the keys, lengths and types of what they parse.
	"fromYaml": true, "fromYamlArray": true, "fromJson": true, "fromJsonArray": true,
	"mustFromJson": true, "fromToml": true,
}

// comparePrefix starts the names RewriteDecisions gives the comparing functions.
const comparePrefix = "gantryCompared_"

// NumberedFuncs names every function whose answer, at each call, is a decision of the check:
// the comparing functions, the comparisons, the splits, the loops, the calls, set and unset,
// and the builtin index (for tests).
func NumberedFuncs() []string {
	var names []string
	for _, n := range Rewritten {
		names = append(names, n)
	}
	for n := range comparisons {
		names = append(names, n)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// CompareFuncs binds the numbered comparing functions to d, over the execution's own (fn
// returns the execution's function of a name).
func (d *Decider) CompareFuncs(fn func(name string) any) template.FuncMap {
	f := template.FuncMap{}
	for name := range comparing {
		if name != "index" {
			f[comparePrefix+name] = d.compared(name, fn(name))
		}
	}
	if sortAlpha, ok := fn("sortAlpha").(func(any) []string); ok {
		f[comparePrefix+"sortAlpha"] = func(_ int, list any) []string {
			res := sortAlpha(list)
			if !d.started || d.sub == nil {
				return res
			}
			return d.sorted(res)
		}
	}
	if keys, ok := fn("keys").(func(...map[string]any) []string); ok {
		f[comparePrefix+"keys"] = func(_ int, ms ...map[string]any) []string {
			res := keys(ms...)
			if !d.started || d.sub == nil {
				return res
			}
			return d.sorted(res)
		}
	}
	// The most called, without reflect's layer (a tenth of some blueprints' allocations).
	if dict, ok := fn("dict").(func(...any) map[string]any); ok {
		f[comparePrefix+"dict"] = func(id int, kv ...any) map[string]any {
			m := dict(kv...)
			if !d.started || d.sub == nil {
				return m
			}
			return d.dict(id, kv, m)
		}
	}
	if dflt, ok := fn("default").(func(any, ...any) any); ok {
		f[comparePrefix+"default"] = func(id int, def any, given ...any) any {
			got := dflt(def, given...)
			if !d.started || d.sub == nil {
				return got
			}
			return d.dflt(id, def, given, got)
		}
	}
	if get, ok := fn("get").(func(map[string]any, string) any); ok {
		f[comparePrefix+"get"] = func(id int, m map[string]any, k string) any {
			got := get(m, k)
			if !d.started || d.sub == nil {
				return got
			}
			return d.get(id, m, k, got)
		}
	}
	if hasKey, ok := fn("hasKey").(func(map[string]any, string) bool); ok {
		f[comparePrefix+"hasKey"] = func(id int, m map[string]any, k string) bool {
			has := hasKey(m, k)
			if !d.started || d.sub == nil {
				return has
			}
			return d.hasKey(id, has)
		}
	}
	f[comparePrefix+"index"], f[boolAt], f[truthAt] = d.Index, d.Bool, d.Truth
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
	call := func(args []reflect.Value) []reflect.Value {
		if t.IsVariadic() {
			return v.CallSlice(args)
		}
		return v.Call(args)
	}
	merging := name == "merge" || name == "mergeOverwrite" || name == "mustMerge" || name == "mustMergeOverwrite"
	return reflect.MakeFunc(numbered(t, t.IsVariadic()), func(args []reflect.Value) []reflect.Value {
		id, args := int(args[0].Int()), args[1:]
		if !d.started || d.sub == nil {
			return call(args)
		}
		if merging {
			return d.merge(id, args, call)
		}
		switch name {
		case "slice", "mustSlice", "chunk", "mustChunk", "repeat":
			return call(d.counts(id, name, args))
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
			res[0] = reflect.ValueOf(d.hasKey(id, res[0].Bool()))
		case "dict":
			res[0] = reflect.ValueOf(d.dict(id, args[0].Interface().([]any), res[0].Interface().(map[string]any)))
		case "get":
			v := d.get(id, args[0].Interface().(map[string]any), args[1].String(), res[0].Interface())
			res[0] = reflect.ValueOf(&v).Elem()
		case "default":
			v := d.dflt(id, args[0].Interface(), args[1].Interface().([]any), res[0].Interface())
			res[0] = reflect.ValueOf(&v).Elem()
		case "coalesce":
			v := d.chosen(id, args[0].Interface().([]any), res[0].Interface())
			res[0] = reflect.ValueOf(&v).Elem()
		case "fromYaml", "fromYamlArray", "fromJson", "fromJsonArray", "mustFromJson", "fromToml":
			d.shape(id, res[0].Interface())
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

// numbered is the type of a function t with the call site's number before its arguments.
func numbered(t reflect.Type, variadic bool) reflect.Type {
	in := []reflect.Type{reflect.TypeFor[int]()}
	for i := range t.NumIn() {
		in = append(in, t.In(i))
	}
	out := make([]reflect.Type, t.NumOut())
	for i := range out {
		out[i] = t.Out(i)
	}
	return reflect.FuncOf(in, out, variadic)
}

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
func (d *Decider) dict(id int, kv []any, m map[string]any) map[string]any {
	n := (len(kv) + 1) / 2
	if !d.following() {
		if len(m) == n {
			return m
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
		return m
	}
	same := d.taken(id, nil)
	if len(same) == 0 && len(m) == n {
		return m
	}
	keyOf := make([]string, n)
	for p := range n {
		keyOf[p] = strval(kv[2*p])
	}
	for i := 0; i+1 < len(same); i += 2 {
		p, q := same[i], same[i+1]
		if p < 0 || p >= int64(n) || q < 0 || q >= p {
			d.departed = true
			return m
		}
		if !d.sub.tenantPair(keyOf[p], keyOf[q]) {
			d.departed = true // a tenant key equal to the template's (see tenantPair)
			return m
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
		return m
	}
	return out
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

// keyHash is what A records of a key it found: its text as one number, never 0.
func keyHash(k string) int64 { return int64(fnvString(fnvInt(fnvOffset, len(k)), k)>>1) | 1 }

// foundKey is B's key of m that A found, recorded as keyHash of A's key: k if m has it, else
// the one key of m that is A's with its stand-ins put back (the template's own key has A's
// text, a stand-in key restores to the tenant's; where A's key was a tenant string lower-cased,
// B's stand-in is not the template's key, and the record still names it). ok is false where m
// has none, or more than one.
func (s *Substitution) foundKey(m map[string]any, k string, h int64) (string, bool) {
	if _, ok := m[k]; ok {
		// B's own key, found where A found one: the map was built in step with A's (a key
		// B made equal where A's were not departed where it was set), and a number's
		// placeholder in a key does not always restore to A's text.
		return k, true
	}
	found, n := "", 0
	for mk := range m {
		if r, _ := s.Restore(mk); keyHash(r) == h {
			found, n = mk, n+1
		}
	}
	return found, n == 1 && s.tenantPair(k, found)
}

// tenantPair reports whether B may take two of its keys that A found equal as one: both hold
// stand-ins (two tenant strings, or one transformed, that A found equal). A tenant string
// equal to a key of the template's or the platform's is not followed: a tenant that sets,
// merges or names a platform key would then reach the platform's value under its own key, and
// a lookup by its string would print it (a review's case, data selection); B departs, and the
// check refuses naming the value.
func (s *Substitution) tenantPair(a, b string) bool {
	return a == b || (s.HoldsStandIn(a) && s.HoldsStandIn(b))
}

// lookedUp is B's key of m for a lookup A made with k and found: k itself, or none. A tenant
// string that names a key of a map the tenant did not write (`index .Values.secrets
// .Values.key`) selects the platform's data: B's stand-in finds nothing there, and the check
// refuses, naming the value (docs/security.md, data selection). Unlike a key set or merged
// (foundKey), a lookup is not followed to another key of B's.
//
// And B's key must be A's (h, A's keyHash): a key B computed otherwise (a flipped tenant bool
// made a string, the length of a stand-in, a stand-in sorted elsewhere among the template's
// words) finds another entry of the same map, whose value would even an injected item or
// print another entry than A's (a review's cases).
func (d *Decider) lookedUp(m map[string]any, k string, h int64) (string, bool) {
	if _, ok := m[k]; ok && d.sameKeyAs(reflect.ValueOf(m), k, h) {
		return k, true
	}
	d.departed = true
	return k, false
}

// sameKeyAs reports whether B's key k of map m can be A's key of hash h. C, rendered only to
// tell a transformed tenant value from the template's where B already passed, takes its own
// key.
//
// A key of the template's text must be A's text: one B computed from a tenant value
// otherwise (`toString` of a flipped bool, `len` of a stand-in) is another entry. A key holding
// a stand-in is the tenant's: with its stand-ins put back it is A's key, or A transformed the
// tenant's text in a way B's stand-in was not (`printf "%05d"` of a port's placeholder has
// another width than of the port). It is taken unless m has another key that is A's with its
// stand-ins put back: then B's key named another entry than A's (`trimPrefix` of a tenant's
// prefix cut A's key and not B's stand-in; a review's case, which also printed a platform
// entry beside a tenant-named one).
func (d *Decider) sameKeyAs(m reflect.Value, k string, h int64) bool {
	if d.sub.pfx != placeholderPrefix {
		return true
	}
	if !d.sub.Holds(k) {
		return keyHash(k) == h
	}
	if r, _ := d.sub.Restore(k); keyHash(r) == h {
		return true
	}
	for _, mk := range m.MapKeys() {
		if s := mk.String(); s != k {
			if r, _ := d.sub.Restore(s); keyHash(r) == h {
				return false
			}
		}
	}
	return true
}

// hashIf is keyHash(k) for a record where found, none where not.
func hashIf(found bool, k string) []int64 {
	if found {
		return []int64{keyHash(k)}
	}
	return nil
}

// get: A records the key it found; B takes the value of its key that is A's, or nothing where
// A found nothing.
func (d *Decider) get(id int, m map[string]any, k string, res any) any {
	if !d.following() {
		_, ok := m[k]
		d.taken(id, hashIf(ok, k))
		return res
	}
	if rec := d.taken(id, nil); len(rec) == 1 {
		if key, ok := d.lookedUp(m, k, rec[0]); ok {
			return m[key]
		}
		return res
	}
	return ""
}

// hasKey: A's answer.
func (d *Decider) hasKey(id int, has bool) bool {
	return d.taken(id, truth(has)) != nil
}

// dflt is default's result: the value given, unless it is empty, then the default. A records
// where it gave the default; B gives what A gave, of its own.
func (d *Decider) dflt(id int, def any, given []any, got any) any {
	if !d.following() {
		if len(given) == 0 || !same(given[0], got) {
			d.taken(id, []int64{1})
		}
		return got
	}
	if d.taken(id, nil) != nil || len(given) == 0 {
		return def
	}
	return given[0]
}

// chosen is coalesce's result: the first of its arguments that is not empty. A records the
// place of what it gave where that is not the first (or where it gave none); B gives its
// argument at A's place.
func (d *Decider) chosen(id int, cands []any, got any) any {
	if !d.following() {
		at := len(cands) // none of them (coalesce of empty values gives nil)
		for i, c := range cands {
			if same(c, got) {
				at = i
				break
			}
		}
		if at != 0 {
			d.taken(id, []int64{int64(at)})
		}
		return got
	}
	at := 0
	if rec := d.taken(id, nil); len(rec) == 1 {
		at = int(rec[0])
	}
	switch {
	case at >= 0 && at < len(cands):
		return cands[at]
	case at != len(cands):
		d.departed = true
		return got
	}
	return nil
}

// same reports whether two values are one: the same value of a basic kind, or the same map
// or list (what default and coalesce hand on is one of their arguments, not a copy).
func same(a, b any) bool {
	ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !ra.IsValid() || !rb.IsValid() {
		return !ra.IsValid() && !rb.IsValid()
	}
	if ra.Type() != rb.Type() {
		return false
	}
	switch ra.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Func, reflect.Chan:
		return ra.Pointer() == rb.Pointer() && (ra.Kind() != reflect.Slice || ra.Len() == rb.Len())
	}
	if !ra.Type().Comparable() {
		return false
	}
	return a == b
}

// counts: slice's indices, chunk's size and repeat's count are counts. A records them; B, whose own differ
// (a bound from `int` of a tenant's numeric string, or from `len`, is its stand-in's), departs:
// it cannot take A's, which would let a tenant number pick which of the platform's items
// the output shows (data selection; a review's case), and its own would even an injected
// item with one more of its own (another review's).
func (d *Decider) counts(id int, name string, args []reflect.Value) []reflect.Value {
	var vs []int64
	switch name {
	case "chunk", "mustChunk", "repeat":
		vs = []int64{args[0].Int()}
	default:
		for _, v := range args[1].Interface().([]any) {
			vs = append(vs, toInt64(v))
		}
	}
	if got := d.decideInts(id, vs...); !slices.Equal(got, vs) {
		d.departed = true
	}
	return args
}

// toInt64 is how sprig's slice reads an index (cast.ToInt): numbers and numeric strings, 0
// for anything else.
func toInt64(v any) int64 {
	switch v := v.(type) {
	case int:
		return int64(v)
	case int64:
		return v
	case int32:
		return int64(v)
	case float64:
		return int64(v)
	case string:
		n, _ := strconv.ParseInt(v, 0, 64)
		return n
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(rv.Uint())
	}
	return 0
}

// shape: what fromYaml and the others read from text is structure, and a tenant string in the
// text can add to it (a key, an item) or take from it (a key equal to another, which the
// parser keeps once). A records the shape of the result, its keys, lengths and scalar types;
// B, whose keys restore to A's, must read the same, or departs.
func (d *Decider) shape(id int, v any) {
	var key func(string) string
	if d.following() {
		key = func(k string) string { r, _ := d.sub.Restore(k); return r }
	}
	sum := int64(writeShape(fnvOffset, v, key) >> 1)
	if got := d.decideInts(id, sum)[0]; got != sum {
		d.departed = true
	}
}

// FNV-1a, written out: hash.Hash's Write takes bytes, and converting every key to them was
// most of a parse's cost here.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

func fnvInt(h uint64, n int) uint64 {
	for i := 0; i < 8; i++ {
		h = (h ^ uint64(byte(n>>(8*i)))) * fnvPrime
	}
	return h
}

// writeShape hashes v's shape into h: map keys (through key, where given) and sizes, and the
// type of each scalar.
func writeShape(h uint64, v any, key func(string) string) uint64 {
	switch v := v.(type) {
	case map[string]any:
		type entry struct{ name, key string }
		keys := make([]entry, 0, len(v))
		for k := range v {
			name := k
			if key != nil {
				name = key(k)
			}
			keys = append(keys, entry{name, k})
		}
		slices.SortFunc(keys, func(a, b entry) int { return strings.Compare(a.name, b.name) })
		h = fnvInt(fnvString(h, "{"), len(keys))
		for _, e := range keys {
			h = fnvString(fnvInt(h, len(e.name)), e.name)
			h = writeShape(h, v[e.key], key)
		}
		return fnvString(h, "}")
	case []any:
		h = fnvInt(fnvString(h, "["), len(v))
		for _, e := range v {
			h = writeShape(h, e, key)
		}
		return fnvString(h, "]")
	case string:
		return fnvString(h, "s")
	case bool:
		return fnvString(h, "b")
	case nil:
		return fnvString(h, "z")
	}
	return fnvString(h, "n")
}

// sorted is sortAlpha's result, and keys' (which sprig gives in the map's random order, A's
// and B's apart): in A, sorted by text; in B, by text with its stand-ins put back, so that B's
// items come in A's order (B's stand-ins sort elsewhere among the template's words than A's
// strings: `keys $m | sortAlpha` then `get $m $k` looked up another key in B; a review's
// case). C keeps its own order.
func (d *Decider) sorted(items []string) []string {
	if !d.following() || d.sub.pfx != placeholderPrefix {
		slices.Sort(items)
		return items
	}
	type item struct{ name, own string }
	named := make([]item, len(items))
	for i, it := range items {
		r, _ := d.sub.Restore(it)
		named[i] = item{r, it}
	}
	slices.SortStableFunc(named, func(a, b item) int {
		return cmp.Or(strings.Compare(a.name, b.name), strings.Compare(a.own, b.own))
	})
	for i, it := range named {
		items[i] = it.own
	}
	return items
}

// entries is what a range over a map of string keys visits, in the order sorted gives its
// keys (text/template's own order is its keys' text), as a sequence text/template ranges over
// as it does over the map: two variables take the key and the value, one or none the value.
// Keys and values are taken before the first iteration, as text/template takes a map's: a
// set or unset of the map in the body does not change what the range visits (a review's
// case: an unset key panicked, a set one was printed new).
func (d *Decider) entries(m reflect.Value, vars int) (keys []string, seq any) {
	values := make(map[string]any, m.Len())
	for it := m.MapRange(); it.Next(); {
		k := it.Key().String()
		keys = append(keys, k)
		values[k] = it.Value().Interface()
	}
	keys = d.sorted(keys)
	if vars > 1 {
		return keys, iter.Seq2[string, any](func(yield func(string, any) bool) {
			for _, k := range keys {
				if !yield(k, values[k]) {
					return
				}
			}
		})
	}
	return keys, iter.Seq[any](func(yield func(any) bool) {
		for _, k := range keys {
			if !yield(values[k]) {
				return
			}
		}
	})
}

// dig: A records the path of keys it found, whole; B takes the value under its keys that are
// A's, or the default where A did not find it all (sprig's dig: keys…, default, map).
func (d *Decider) dig(id int, ps []any, res reflect.Value) reflect.Value {
	keys := ps[:len(ps)-2]
	if !d.following() {
		var path []int64
		m, _ := ps[len(ps)-1].(map[string]any)
		for i, k := range keys {
			ks, _ := k.(string)
			v, ok := m[ks]
			if !ok || m == nil {
				path = nil
				break
			}
			path = append(path, keyHash(ks))
			if i < len(keys)-1 {
				m, _ = v.(map[string]any)
			}
		}
		d.taken(id, path)
		return res
	}
	v := ps[len(ps)-2]
	if rec := d.taken(id, nil); rec != nil {
		if len(rec) != len(keys) {
			d.departed = true
			return res
		}
		m, _ := ps[len(ps)-1].(map[string]any)
		for i, k := range keys {
			ks, _ := k.(string)
			key, ok := d.lookedUp(m, ks, rec[i])
			if !ok {
				return res
			}
			v = m[key]
			if i < len(keys)-1 {
				m, _ = v.(map[string]any)
			}
		}
	}
	return reflect.ValueOf(&v).Elem()
}

// pluck: A records which maps held the key, and the key; B takes the value of its key that is
// A's from each of them.
func (d *Decider) pluck(id int, k string, ms []map[string]any, res reflect.Value) reflect.Value {
	if !d.following() {
		var found []int64
		for i, m := range ms {
			if _, ok := m[k]; ok {
				found = append(found, int64(i))
			}
		}
		if found != nil {
			found = append(found, keyHash(k))
		}
		d.taken(id, found)
		return res
	}
	found := d.taken(id, nil)
	out := make([]any, 0, len(found))
	if len(found) == 0 {
		return reflect.ValueOf(out)
	}
	for _, i := range found[:len(found)-1] {
		if i < 0 || i >= int64(len(ms)) {
			d.departed = true
			return res
		}
		key, ok := d.lookedUp(ms[i], k, found[len(found)-1])
		if !ok {
			return res
		}
		out = append(out, ms[i][key])
	}
	return reflect.ValueOf(out)
}

// Truth is gantryTruth, an operand of and or or that can stop them: A records where it is
// true; B's has A's truth, as a with's value has (decideWith): a tenant bool is A's, a number
// or string A found empty is its type's zero, and one A found true that B cannot make true
// departs.
func (d *Decider) Truth(id int, v any) any {
	if !d.started || d.sub == nil {
		return v
	}
	truth, _ := template.IsTrue(v)
	if !d.following() {
		d.taken(id, truth1(truth))
		return v
	}
	want := d.taken(id, nil) != nil
	switch {
	case truth == want:
		return v
	case want:
		if _, isBool := v.(bool); isBool {
			return true
		}
		d.departed = true
		return v
	case v == nil:
		return nil
	}
	return reflect.Zero(reflect.TypeOf(v)).Interface()
}

func truth1(b bool) []int64 { return truth(b) }

// keyOrder checks a range over a map: text/template visits its keys in sorted order, and B's
// stand-in keys sort elsewhere among the template's than A's strings, so B's iteration i
// would take A's decisions for another entry (a review's case). B visits them in A's order
// (entries); A records its keys in order, and B's, the tenant's put back, must be the same (a
// key transformed past its stand-in can sort otherwise), or B departs.
func (d *Decider) keyOrder(id int, m reflect.Value, vars int) any {
	keys, seq := d.entries(m, vars)
	h := fnvOffset
	for _, k := range keys {
		if d.following() && d.sub.pfx == placeholderPrefix && d.sub.Holds(k) {
			k, _ = d.sub.Restore(k)
		}
		h = fnvString(fnvInt(h, len(k)), k)
	}
	sum := int64(h >> 1)
	if got := d.decideInts(id, sum)[0]; got != sum && d.sub.pfx == placeholderPrefix {
		d.departed = true
	}
	return seq
}

// Bool is gantryBool: a comparison's answer, A's in B (see comparisons).
func (d *Decider) Bool(id int, v any) any {
	b, ok := v.(bool)
	if !ok || !d.started || d.sub == nil {
		return v
	}
	if !d.following() {
		d.taken(id, truth(b))
		return b
	}
	return d.taken(id, nil) != nil
}

// Index is the builtin index, numbered (`gantryCompared_index N ITEM KEYS…`), with text/template's
// results and errors, and its lookups recorded: for each map it looked a string up in, A
// records the key it found (B finds its own, or departs: a tenant string that names a
// platform key selects the platform's data); for each list, the place it took (B, whose place
// from a tenant number is its stand-in's, departs where its own is another). A key A did not
// find is not found in B either. text/template passes and takes reflect.Values here as it does
// for its own builtins.
func (d *Decider) Index(id int, item reflect.Value, keys ...reflect.Value) (reflect.Value, error) {
	checked := d.started && d.sub != nil
	following := checked && d.following()
	var rec, took []int64
	if following {
		rec = d.taken(id, nil)
	}
	item = concrete(item)
	if !item.IsValid() {
		return reflect.Value{}, fmt.Errorf("index of untyped nil")
	}
	for level, key := range keys {
		key = concrete(key)
		for item.Kind() == reflect.Pointer || item.Kind() == reflect.Interface {
			if item.IsNil() {
				return reflect.Value{}, fmt.Errorf("index of nil pointer")
			}
			item = item.Elem()
		}
		switch item.Kind() {
		case reflect.Array, reflect.Slice, reflect.String:
			x, err := place(key, item.Len())
			if err != nil {
				return reflect.Value{}, err
			}
			item = item.Index(x) // x == len panics, as the builtin's does
			took = append(took, int64(2*level+1), int64(x))
			if following && !slices.Contains(pairsAt(rec, 2*level+1), int64(x)) {
				d.departed = true
			}
		case reflect.Map:
			k, err := mapKey(key, item.Type().Key())
			if err != nil {
				return reflect.Value{}, err
			}
			v := item.MapIndex(k)
			if k.Kind() == reflect.String {
				switch {
				case !following:
					if v.IsValid() {
						took = append(took, int64(2*level), keyHash(k.String()))
					}
				case len(pairsAt(rec, 2*level)) == 0:
					v = reflect.Value{} // A found nothing: neither does B
				case !v.IsValid() || !d.sameKeyAs(item, k.String(), pairsAt(rec, 2*level)[0]):
					d.departed = true // data selection, or another key than A's (see lookedUp)
				}
			}
			if v.IsValid() {
				item = v
			} else {
				item = reflect.Zero(item.Type().Elem())
			}
		default:
			return reflect.Value{}, fmt.Errorf("can't index item of type %s", item.Type())
		}
	}
	if checked && !following {
		d.taken(id, took)
	}
	return item, nil
}

// concrete is the value an interface holds (invalid for nil), or v.
func concrete(v reflect.Value) reflect.Value {
	if v.Kind() != reflect.Interface {
		return v
	}
	if v.IsNil() {
		return reflect.Value{}
	}
	return v.Elem()
}

// place is a list index as the builtin reads it: an integer within the length.
func place(key reflect.Value, n int) (int, error) {
	var x int64
	switch key.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x = key.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		x = int64(key.Uint())
	case reflect.Invalid:
		return 0, fmt.Errorf("cannot index slice/array with nil")
	default:
		return 0, fmt.Errorf("cannot index slice/array with type %s", key.Type())
	}
	if x < 0 || x > int64(n) {
		return 0, fmt.Errorf("index out of range: %d", x)
	}
	return int(x), nil
}

// mapKey is a map key as the builtin takes it: assignable, or an integer converted.
func mapKey(key reflect.Value, t reflect.Type) (reflect.Value, error) {
	if !key.IsValid() {
		switch t.Kind() {
		case reflect.Chan, reflect.Func, reflect.Interface, reflect.Map, reflect.Pointer, reflect.Slice:
			return reflect.Zero(t), nil
		}
		return reflect.Value{}, fmt.Errorf("value is nil; should be of type %s", t)
	}
	if key.Type().AssignableTo(t) {
		return key, nil
	}
	if integer(key.Kind()) && integer(t.Kind()) && key.Type().ConvertibleTo(t) {
		return key.Convert(t), nil
	}
	return reflect.Value{}, fmt.Errorf("value has type %s; should be %s", key.Type(), t)
}

func integer(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// pairsAt is the values of a record of (tag, value) pairs with the given tag.
func pairsAt(rec []int64, tag int) []int64 {
	var out []int64
	for i := 0; i+1 < len(rec); i += 2 {
		if rec[i] == int64(tag) {
			out = append(out, rec[i+1])
		}
	}
	return out
}

// picked is omit's or pick's result: A records which of the keys it was given the map held,
// and those keys; B omits or picks its keys that are A's.
func (d *Decider) picked(id int, pick bool, m map[string]any, keys []string, res reflect.Value) reflect.Value {
	if !d.following() {
		var found []int64
		for i, k := range keys {
			if _, ok := m[k]; ok {
				found = append(found, int64(i), keyHash(k))
			}
		}
		d.taken(id, found)
		return res
	}
	found := d.taken(id, nil)
	chosen := make(map[string]bool, len(found)/2)
	for j := 0; j+1 < len(found); j += 2 {
		i := found[j]
		if i < 0 || i >= int64(len(keys)) {
			d.departed = true
			return res
		}
		key, ok := "", false
		if pick {
			key, ok = d.lookedUp(m, keys[i], found[j+1])
		} else if key, ok = d.sub.foundKey(m, keys[i], found[j+1]); !ok {
			d.departed = true
		}
		if !ok {
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

// merge: A records which keys of the sources, in merge order and deeply, it found already in
// the destination (see shadow), as hashes of their paths; B, whose source keys may be stand-ins
// for A's, merges each under the key of the destination that is A's (sameKey), and must find
// the same paths once its stand-ins are put back (a count alone was evened by a key found at
// another depth, a review's case).
func (d *Decider) merge(id int, args []reflect.Value, call func([]reflect.Value) []reflect.Value) []reflect.Value {
	dst, _ := args[0].Interface().(map[string]any)
	srcs, _ := args[1].Interface().([]map[string]any)
	if !d.following() {
		d.taken(id, (&shadow{m: dst}).mergeAll(srcs, nil, nil))
		return call(args)
	}
	renamed := slices.Clone(srcs)
	found := (&shadow{m: dst}).mergeAll(renamed, d, nil)
	if !slices.Equal(found, d.taken(id, nil)) {
		d.departed = true
	}
	return call([]reflect.Value{args[0], reflect.ValueOf(renamed)})
}

// shadow is the keys a map has during a merge into it: its own and those the merge added,
// without changing it (the merge itself is the function's, after).
type shadow struct {
	m     map[string]any
	added map[string]*shadow // keys added, and the maps under m's keys, as shadows
}

// mergeAll finds the keys of srcs that are in s as mergo merges them (one source after
// another, into the maps under keys both have), and returns the hashes of their paths, sorted
// (with d, B's: each key with its stand-ins put back). With d, a source key not in s whose
// stand-ins put back make one of s's is renamed to it, in a copy of its source (srcs[i] is
// replaced).
func (s *shadow) mergeAll(srcs []map[string]any, d *Decider, path []string) []int64 {
	var found []int64
	for i, src := range srcs {
		srcs[i] = s.mergeOne(src, d, path, &found)
	}
	slices.Sort(found)
	return found
}

func (s *shadow) mergeOne(src map[string]any, d *Decider, path []string, found *[]int64) map[string]any {
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
		name := key
		if d != nil {
			name, _ = d.sub.Restore(key)
		}
		at := append(path[:len(path):len(path)], name)
		*found = append(*found, pathHash(at))
		if vm, isMap := v.(map[string]any); isMap && (child.m != nil || child.added != nil) {
			merged := child.mergeOne(vm, d, at, found)
			if !sameMap(merged, vm) {
				if sameMap(out, src) {
					out = cloneMap(src)
				}
				out[key] = merged
			}
		}
	}
	return out
}

// pathHash is a path of keys as one number.
func pathHash(path []string) int64 {
	h := fnvOffset
	for _, k := range path {
		h = fnvString(fnvInt(h, len(k)), k)
	}
	return int64(h >> 1)
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
	return found, n == 1 && d.sub.tenantPair(k, found)
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
