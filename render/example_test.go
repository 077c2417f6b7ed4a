package render_test

import (
	"encoding/json"
	"fmt"

	"gantry.dev/gantry/apis/v1alpha1"
	"gantry.dev/gantry/render"
)

func ExampleBlueprint_RenderGateway() {
	bp, err := render.Compile("hello", &v1alpha1.GatewayClassBlueprintSpec{
		GatewayTemplate: v1alpha1.GatewayTemplate{
			ResourceTemplates: map[string]string{
				"config": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}-config
data:
  greeting: {{ .Values.greeting | quote }}
  served: {{ join "," .Hostnames.Attached | quote }}
  certificate: {{ join "," .Hostnames.Intersection | quote }}
`,
			},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := bp.RenderGateway(&render.Input{
		Values:  map[string]any{"greeting": "hello"},
		Gateway: map[string]any{"metadata": map[string]any{"name": "web", "namespace": "team-a"}},
		Hostnames: render.ComputeHostnames([]render.ListenerRoutes{
			{Hostname: "*.example.com", Routes: [][]string{{"shop.example.com"}}},
		}),
		Namespace: "team-a",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range out.Objects {
		b, _ := json.Marshal(o.Object)
		fmt.Printf("%s: %s\n", o.Template, b)
	}
	// Output:
	// config: {"apiVersion":"v1","data":{"certificate":"*.example.com","greeting":"hello","served":"shop.example.com"},"kind":"ConfigMap","metadata":{"name":"web-config","namespace":"team-a"}}
}

func ExampleCompile() {
	_, err := render.Compile("hello", &v1alpha1.GatewayClassBlueprintSpec{
		GatewayTemplate: v1alpha1.GatewayTemplate{
			ResourceTemplates: map[string]string{
				"config": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ env \"HOSTNAME\" }}\n",
			},
		},
	})
	fmt.Println(err)
	// Output:
	// blueprint hello: gatewayTemplate.resourceTemplates.config:4: function "env" not defined
}
