package precedence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// variedInput is a route chain with several policies on every level, many created at the same
// instant so that only namespace/name orders them, that contest the same keys with defaults,
// overrides, nulls, lists and maps nested several deep — and candidates that do not apply.
func variedInput() Input {
	bp := Blueprint{
		Default: vals{
			"replicas": 1,
			"image":    vals{"repo": "envoy", "tag": "v1", "pull": "IfNotPresent"},
			"ports":    []any{80, 443},
			"tls":      vals{"mode": "Terminate", "cert": vals{"name": "default", "ns": "gantry-system"}},
			"labels":   vals{"team": "platform", "tier": "edge"},
		},
		Override: vals{"image": vals{"pull": "Always"}},
	}
	var policies []Policy
	for l := LevelGlobal; l <= LevelRoute; l++ {
		for i, name := range []string{"b", "a", "c"} {
			n := int(l)*10 + i
			p := policyAt(l, fmt.Sprintf("%s-%d", name, l), minute(int(l)%2)) // equal times
			p.Default = vals{
				"replicas": n,
				"tls":      vals{"cert": vals{"name": fmt.Sprintf("cert-%d", n)}, "mode": nil},
				"labels":   vals{name: n, "tier": nil},
				"ports":    []any{n, vals{"port": n}},
			}
			switch i {
			case 0:
				p.Override = vals{"image": vals{"tag": fmt.Sprintf("v%d", n)}, "labels": "none"}
			case 1:
				p.Override = vals{"tls": nil, "image": vals{"repo": nil}}
			case 2:
				p.Override = vals{"labels": vals{"override": n}, "ports": []any{}}
			}
			policies = append(policies, p)
		}
	}
	for i := range 6 {
		p := gc(fmt.Sprintf("team-%d", i), fmt.Sprintf("stray-%d", i), epoch, Target{Kind: TargetNamespace, Name: "elsewhere"})
		p.Default = vals{"replicas": 100 + i}
		p.Override = vals{"labels": nil}
		policies = append(policies, p)
	}
	in := routeInput(ObjectKey{Namespace: routeNS, Name: routeName}, bp, policies...)
	in.CommandLine = vals{"image": vals{"tag": "dev"}}
	return in
}

func TestResolveIgnoresInputOrder(t *testing.T) {
	in := variedInput()
	want, err := json.Marshal(Resolve(in))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		shuffled := in
		shuffled.Policies = append([]Policy(nil), in.Policies...)
		rng.Shuffle(len(shuffled.Policies), func(a, b int) {
			shuffled.Policies[a], shuffled.Policies[b] = shuffled.Policies[b], shuffled.Policies[a]
		})
		got, err := json.Marshal(Resolve(shuffled))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			var order []string
			for _, p := range shuffled.Policies {
				order = append(order, p.Name)
			}
			t.Fatalf("shuffle %d (%v) changed the result:\n got: %s\nwant: %s", i, order, got, want)
		}
	}
}
