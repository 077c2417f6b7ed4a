package precedence

import (
	"fmt"
	"testing"
)

// benchInput is a busy cluster's view of one Gateway: a blueprint with 30 leaves, six policies
// that apply (every level of the Gateway chain, two global), and 44 candidates that do not —
// other tenants' Gateways and Namespaces and other classes' configs.
func benchInput() Input {
	bp := Blueprint{
		Default: vals{
			"replicas": 2,
			"image":    vals{"repository": "envoyproxy/envoy", "tag": "v1.31.0", "pullPolicy": "IfNotPresent"},
			"resources": vals{
				"requests": vals{"cpu": "100m", "memory": "128Mi"},
				"limits":   vals{"cpu": "1", "memory": "512Mi"},
			},
			"service": vals{
				"type":                  "LoadBalancer",
				"annotations":           vals{},
				"ports":                 []any{vals{"name": "http", "port": 80}, vals{"name": "https", "port": 443}},
				"externalTrafficPolicy": "Local",
			},
			"logging":  vals{"level": "info", "format": "json", "accessLog": true},
			"tls":      vals{"minVersion": "1.2", "cipherSuites": []any{"ECDHE-ECDSA-AES128-GCM-SHA256"}},
			"probes":   vals{"readiness": vals{"path": "/ready", "port": 19001, "period": 5}},
			"pdb":      vals{"enabled": true, "minAvailable": 1},
			"hpa":      vals{"enabled": false, "min": 2, "max": 10, "cpu": 80},
			"metrics":  vals{"enabled": true, "port": 19001},
			"labels":   vals{"app.kubernetes.io/part-of": "gantry"},
			"affinity": vals{"spread": "zone"},
		},
		Override: vals{"metrics": vals{"enabled": true}, "tls": vals{"minVersion": "1.2"}},
	}
	applicable := []Policy{
		withOverride(globalGCC("security", minute(0)), vals{"tls": vals{"minVersion": "1.3"}, "image": vals{"pullPolicy": "Always"}}),
		withDefault(globalGCC("sizing", minute(1)), vals{"resources": vals{"limits": vals{"memory": "1Gi"}}, "hpa": vals{"enabled": true}}),
		withDefault(namespaceGCC("tenant", minute(0)), vals{"labels": vals{"cost-center": "cc-42"}, "pdb": vals{"minAvailable": 2}}),
		withOverride(withDefault(classGCC("internet", minute(0)),
			vals{"service": vals{"annotations": vals{"lb.example/scheme": "internet-facing"}}}),
			vals{"hpa": vals{"max": 20}}),
		withDefault(namespaceGC("team", minute(0)), vals{"logging": vals{"level": "debug", "accessLog": nil}, "replicas": 3}),
		withDefault(gatewayGC("web", minute(0)), vals{"service": vals{"ports": []any{vals{"name": "https", "port": 8443}}}, "hpa": vals{"min": 4}}),
	}
	policies := append([]Policy(nil), applicable...)
	for i := range 44 {
		ns := fmt.Sprintf("team-%d", i%11)
		var p Policy
		switch i % 4 {
		case 0:
			p = gc(ns, "gw", epoch, Target{Group: GatewayGroup, Kind: TargetGateway, Name: "gw"})
		case 1:
			p = gc(ns, "ns", epoch, Target{Kind: TargetNamespace, Name: ns})
		case 2:
			p = gcc(ns, "class", epoch, Target{Group: GatewayGroup, Kind: TargetGatewayClass, Name: className})
		case 3:
			p = gcc(ctrlNS, fmt.Sprintf("other-%d", i), epoch, Target{Group: GatewayGroup, Kind: TargetGatewayClass, Name: "internal"})
		}
		p.Default = vals{"replicas": i, "logging": vals{"level": "warn"}}
		policies = append(policies, p)
	}
	return gatewayInput(bp, policies...)
}

func BenchmarkResolve(b *testing.B) {
	in := benchInput()
	if res := Resolve(in); len(res.Chain) != 7 || len(res.Leaves) < 30 {
		b.Fatalf("benchmark input is not what it says: chain %v, %d leaves", res.Chain, len(res.Leaves))
	}
	b.ReportAllocs()
	for b.Loop() {
		Resolve(in)
	}
}
