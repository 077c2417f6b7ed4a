package playground

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"gantry.dev/gantry/manifests"
)

// fieldManager is the playground's own field manager for what it applies from the files: the
// controller's fields (finalizers, status) are never its.
const fieldManager = "gantry-playground"

// watch applies o.Paths again after every change below them, deletes what the files no longer
// hold, and prints the Gateways again, until ctx ends. A change that does not load (a YAML
// error, a misspelt field) is reported and nothing is applied.
func watch(ctx context.Context, c client.Client, w *fsnotify.Watcher, out io.Writer, o Options, applied *manifests.Set, timeout time.Duration) error {
	var quiet <-chan time.Time // editors write a file in several steps: apply once they are done
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-w.Errors:
			fmt.Fprintln(out, "watch:", err)
		case ev := <-w.Events:
			if ev.Has(fsnotify.Create) {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					_ = watchTree(w, ev.Name)
				}
			}
			if manifestFile(ev.Name) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				quiet = time.After(300 * time.Millisecond)
			}
		case <-quiet:
			quiet = nil
			next, err := manifests.Load(o.Paths, nil)
			if err != nil {
				fmt.Fprintf(out, "\nThe files do not load; nothing applied: %v\n", err)
				continue
			}
			fmt.Fprintln(out, "\nApplying", strings.Join(o.Paths, " "), "again ...")
			if err := resync(ctx, c, applied, next); err != nil {
				fmt.Fprintf(out, "%v\n", err)
			}
			applied = next
			if err := settle(ctx, c, next, timeout); err != nil {
				fmt.Fprintln(out, err)
			}
			if err := report(ctx, c, out); err != nil {
				return err
			}
			if o.Changed != nil {
				o.Changed()
			}
		}
	}
}

// newWatcher watches the paths (watchTree).
func newWatcher(paths []string) (*fsnotify.Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		if err := watchTree(w, p); err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

// watchTree watches p: a folder and every folder below it, or a file's folder (editors often
// replace a file rather than write it, which a watch on the file itself would lose).
func watchTree(w *fsnotify.Watcher, p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return w.Add(filepath.Dir(p))
	}
	return filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return w.Add(path)
	})
}

func manifestFile(name string) bool {
	switch filepath.Ext(name) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// resync server-side applies every object of next (creating what is new) and deletes the
// objects of prev that next no longer holds. Every object is tried; the errors are joined.
func resync(ctx context.Context, c client.Client, prev, next *manifests.Set) error {
	objs := objects(next)
	if err := createNamespaces(ctx, c, next, objs); err != nil {
		return err
	}
	keep := map[string]bool{}
	var errs []error
	for _, o := range objs {
		u, err := applyable(c.Scheme(), o)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		keep[identity(u)] = true
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(fieldManager), client.ForceOwnership); err != nil {
			errs = append(errs, fmt.Errorf("apply %s: %w", identity(u), err))
		}
	}
	for _, o := range objects(prev) {
		u, err := applyable(c.Scheme(), o)
		if err != nil || keep[identity(u)] {
			continue
		}
		if err := c.Delete(ctx, u); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete %s: %w", identity(u), err))
		}
	}
	return errors.Join(errs...)
}

// applyable is o as an apply request: its kind set, without status or server-set metadata.
func applyable(scheme *runtime.Scheme, o client.Object) (*unstructured.Unstructured, error) {
	gvk, err := apiutil.GVKForObject(o, scheme)
	if err != nil {
		return nil, err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	delete(u.Object, "status")
	for _, f := range []string{"creationTimestamp", "resourceVersion", "uid", "generation", "managedFields"} {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
	return u, nil
}

func identity(u *unstructured.Unstructured) string {
	return u.GroupVersionKind().GroupKind().String() + " " + client.ObjectKeyFromObject(u).String()
}
