// Package testenv starts a real kube-apiserver and etcd (controller-runtime's envtest) with
// Gantry's and Gateway API's CRDs installed, for tests and the playground.
//
// The binaries come from hack/envtest-binaries.sh (bin/k8s), or from $KUBEBUILDER_ASSETS.
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"gantry.dev/gantry/controllers"
)

// Root is the repository's root folder.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Assets returns the folder holding kube-apiserver and etcd, or an error that says how to get
// them.
func Assets() (string, error) {
	dir := os.Getenv("KUBEBUILDER_ASSETS")
	if dir == "" {
		dir = filepath.Join(Root(), "bin", "k8s")
	}
	for _, b := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return "", fmt.Errorf("%s not found in %s: run hack/envtest-binaries.sh (make envtest-assets) or set KUBEBUILDER_ASSETS", b, dir)
		}
	}
	return dir, nil
}

// Start starts an API server with the CRDs installed. Stop it with env.Stop().
func Start() (*envtest.Environment, *rest.Config, error) {
	return StartWithout()
}

// StartWithout is Start without some of Gateway API's CRDs (file names in config/gateway-api),
// as on a cluster with an older Gateway API.
func StartWithout(omit ...string) (*envtest.Environment, *rest.Config, error) {
	return start("", omit...)
}

// StartRestartable is Start with the API server's certificates and keys in certDir, which
// outlives a stop: env.ControlPlane.APIServer can then be stopped and started again on the same
// address, with the same serving certificate and client CA, against the same etcd, and a
// running client's credentials still hold (a fresh directory each start would make new ones).
func StartRestartable(certDir string) (*envtest.Environment, *rest.Config, error) {
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, nil, err
	}
	return start(certDir)
}

func start(certDir string, omit ...string) (*envtest.Environment, *rest.Config, error) {
	assets, err := Assets()
	if err != nil {
		return nil, nil, err
	}
	paths := []string{filepath.Join(Root(), "config", "crd"), filepath.Join(Root(), "config", "gateway-api")}
	if len(omit) > 0 {
		files, err := filepath.Glob(filepath.Join(Root(), "config", "gateway-api", "*.yaml"))
		if err != nil {
			return nil, nil, err
		}
		paths = append(paths[:1], slices.DeleteFunc(files, func(f string) bool { return slices.Contains(omit, filepath.Base(f)) })...)
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     paths,
		ErrorIfCRDPathMissing: true,
		Scheme:                controllers.NewScheme(),
	}
	// envtest's default service range is a /24: 254 Services, too few for the scale harness's
	// thousands of Gateways (each renders one).
	env.ControlPlane.GetAPIServer().Configure().Set("service-cluster-ip-range", "10.0.0.0/16")
	env.ControlPlane.GetAPIServer().CertDir = certDir
	env.ControlPlaneStopTimeout = 90 * time.Second // the API server drains its watches first
	cfg, err := env.Start()
	if err != nil {
		return nil, nil, fmt.Errorf("start kube-apiserver and etcd: %w", err)
	}
	return env, cfg, nil
}
