package precedence

import "testing"

func TestPathString(t *testing.T) {
	tests := []struct {
		path Path
		want string
	}{
		{nil, ""},
		{Path{"replicas"}, "replicas"},
		{Path{"service", "ports", "0"}, "service.ports.0"},
		{Path{"snake_case", "kebab-case", "CamelCase"}, "snake_case.kebab-case.CamelCase"},
		{Path{"labels", "app.kubernetes.io/name"}, `labels["app.kubernetes.io/name"]`},
		{Path{"b.c", "d"}, `["b.c"].d`},
		{Path{"a", "b.c", "d"}, `a["b.c"].d`},
		{Path{"a", ""}, `a[""]`},
		{Path{"with space"}, `["with space"]`},
		{Path{`say "hi"`}, `["say \"hi\""]`},
		{Path{"ünï"}, `["ünï"]`},
	}
	for _, tt := range tests {
		if got := tt.path.String(); got != tt.want {
			t.Errorf("%#v.String() = %s, want %s", tt.path, got, tt.want)
		}
	}
}

func TestSourceOf(t *testing.T) {
	bp := srcOf(bpRef, StanzaDefault, LevelBlueprint)
	gw := srcOf(Ref{Kind: KindGatewayConfig, Namespace: gwNS, Name: gwName}, StanzaDefault, LevelGateway)
	ports := Leaf{Path: Path{"ports"}, Value: []any{80, 443}, Source: bp}
	svcType := Leaf{Path: Path{"svc", "type"}, Value: "LoadBalancer", Source: gw}
	svcPort := Leaf{Path: Path{"svc", "port"}, Value: 80, Source: bp}
	res := &Result{Leaves: []Leaf{
		{Path: Path{"gone"}, Removed: true, Source: gw},
		ports,
		svcPort,
		svcType,
	}}
	tests := []struct {
		name string
		path Path
		want *Leaf
	}{
		{"a leaf", Path{"svc", "type"}, &svcType},
		{"a list", Path{"ports"}, &ports},
		{"an item of a list belongs to the list", Path{"ports", "1"}, &ports},
		{"below a scalar belongs to the scalar", Path{"svc", "port", "x"}, &svcPort},
		{"a map is no single leaf", Path{"svc"}, nil},
		{"a removed key has no source", Path{"gone"}, nil},
		{"below a removed key has no source", Path{"gone", "x"}, nil},
		{"an unknown key", Path{"nope"}, nil},
		{"a sibling that shares a prefix of the name", Path{"port"}, nil},
		{"the root", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := res.SourceOf(tt.path)
			if tt.want == nil {
				if ok {
					t.Fatalf("SourceOf(%s) = %s, want none", tt.path, asJSON(got))
				}
				return
			}
			if !ok {
				t.Fatalf("SourceOf(%s) found nothing, want %s", tt.path, tt.want.Path)
			}
			wantEqual(t, "leaf", got, *tt.want)
		})
	}
}

func TestNames(t *testing.T) {
	web := Ref{Kind: KindGatewayConfig, Namespace: gwNS, Name: gwName}
	tests := []struct{ got, want string }{
		{LevelGateway.String(), "5 (GatewayConfig for Gateway)"},
		{LevelBlueprint.String(), "0 (blueprint)"},
		{Level(42).String(), "42"},
		{bpRef.String(), "GatewayClassBlueprint envoy"},
		{web.String(), "GatewayConfig team-a/web"},
		{cliRef.String(), "command line"},
		{srcOf(web, StanzaOverride, LevelGateway).String(), "GatewayConfig team-a/web (override, level 5)"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	if !web.Tenant() || bpRef.Tenant() || (Ref{Kind: KindGatewayClassConfig}).Tenant() {
		t.Error("only a GatewayConfig is tenant input")
	}
}
