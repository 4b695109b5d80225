package kube

import (
	"context"
	"fmt"
	"sync"
	"time"

	authzv1 "k8s.io/api/authorization/v1"
	coordv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// Leases is what floe does with the Lease objects of one namespace: the
// methods of client-go's typed LeaseInterface that it calls, with their
// signatures, so that CoordinationV1().Leases(namespace) of a clientset
// is one as it is.
type Leases interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordv1.Lease, error)
	List(ctx context.Context, opts metav1.ListOptions) (*coordv1.LeaseList, error)
	Create(ctx context.Context, lease *coordv1.Lease, opts metav1.CreateOptions) (*coordv1.Lease, error)
	Update(ctx context.Context, lease *coordv1.Lease, opts metav1.UpdateOptions) (*coordv1.Lease, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// LeasesGetter gives the Leases of a namespace: a *Client, or a
// clientset's CoordinationV1() through Getter.
type LeasesGetter interface {
	Leases(namespace string) Leases
}

// Getter adapts g, whose Leases method returns client-go's typed
// LeaseInterface (a clientset's CoordinationV1()), to a LeasesGetter.
func Getter[L Leases](g interface{ Leases(namespace string) L }) LeasesGetter {
	return getter[L]{g}
}

type getter[L Leases] struct {
	g interface{ Leases(namespace string) L }
}

func (g getter[L]) Leases(namespace string) Leases { return g.g.Leases(namespace) }

// Client is floe's client of the Kubernetes API: Lease objects and, for
// Check, access reviews. It decodes only those kinds. client-go's typed
// clients register every API group of Kubernetes, which doubles floed's
// binary (35.5 to 71.7 MB); this one adds 8 MB.
type Client struct {
	leases *rest.RESTClient // coordination.k8s.io/v1
	authz  *rest.RESTClient // authorization.k8s.io/v1
}

var _ LeasesGetter = (*Client)(nil)

// kinds are the codecs of the kinds a Client decodes and of its requests'
// parameters.
type kinds struct {
	codecs serializer.CodecFactory
	params runtime.ParameterCodec
}

// schemeKinds returns the kinds, built at the first use: a program that
// links this package but never talks to Kubernetes (floed without
// --kube) does not build them at its start.
var schemeKinds = sync.OnceValue(func() kinds {
	s := runtime.NewScheme()
	if err := coordv1.AddToScheme(s); err != nil {
		panic(err) // registering known types cannot fail
	}
	if err := authzv1.AddToScheme(s); err != nil {
		panic(err)
	}
	metav1.AddToGroupVersion(s, metav1.SchemeGroupVersion)
	return kinds{codecs: serializer.NewCodecFactory(s), params: runtime.NewParameterCodec(s)}
})

// Client rates: client-go's default of 5 requests a second with bursts of
// 10 would throttle the renewals of many sequences.
const (
	clientQPS   = 50
	clientBurst = 100
)

// NewClient returns the Client floe uses over cfg: user agent "floe", 50
// requests a second, bursts of 100. cfg is not changed.
func NewClient(cfg *rest.Config) (*Client, error) {
	if cfg == nil {
		return nil, ErrNoClient
	}
	leases, err := restClient(cfg, coordv1.SchemeGroupVersion)
	if err != nil {
		return nil, err
	}
	authz, err := restClient(cfg, authzv1.SchemeGroupVersion)
	if err != nil {
		return nil, err
	}
	return &Client{leases: leases, authz: authz}, nil
}

// restClient returns a REST client of the API group version gv over cfg.
func restClient(cfg *rest.Config, gv schema.GroupVersion) (*rest.RESTClient, error) {
	c := rest.CopyConfig(cfg)
	c.UserAgent = "floe"
	c.QPS, c.Burst = clientQPS, clientBurst
	c.APIPath = "/apis"
	c.GroupVersion = &gv
	c.NegotiatedSerializer = schemeKinds().codecs.WithoutConversion()
	if c.ContentType == "" {
		c.ContentType = runtime.ContentTypeProtobuf
		c.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	}
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("floe: kubernetes client for %s (%s): %w", cfg.Host, gv, err)
	}
	return rc, nil
}

// Leases returns the Leases of namespace.
func (c *Client) Leases(namespace string) Leases { return &leaseClient{rc: c.leases, ns: namespace} }

// leaseClient is the Leases of one namespace over a REST client, as
// client-go's generated client makes the requests.
type leaseClient struct {
	rc *rest.RESTClient
	ns string
}

func (l *leaseClient) Get(ctx context.Context, name string, opts metav1.GetOptions) (*coordv1.Lease, error) {
	out := &coordv1.Lease{}
	err := l.rc.Get().Namespace(l.ns).Resource("leases").Name(name).VersionedParams(&opts, schemeKinds().params).Do(ctx).Into(out)
	return out, err
}

func (l *leaseClient) List(ctx context.Context, opts metav1.ListOptions) (*coordv1.LeaseList, error) {
	var timeout time.Duration
	if opts.TimeoutSeconds != nil {
		timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	out := &coordv1.LeaseList{}
	err := l.rc.Get().Namespace(l.ns).Resource("leases").VersionedParams(&opts, schemeKinds().params).Timeout(timeout).Do(ctx).Into(out)
	return out, err
}

func (l *leaseClient) Create(ctx context.Context, lease *coordv1.Lease, opts metav1.CreateOptions) (*coordv1.Lease, error) {
	out := &coordv1.Lease{}
	err := l.rc.Post().Namespace(l.ns).Resource("leases").VersionedParams(&opts, schemeKinds().params).Body(lease).Do(ctx).Into(out)
	return out, err
}

func (l *leaseClient) Update(ctx context.Context, lease *coordv1.Lease, opts metav1.UpdateOptions) (*coordv1.Lease, error) {
	out := &coordv1.Lease{}
	err := l.rc.Put().Namespace(l.ns).Resource("leases").Name(lease.Name).VersionedParams(&opts, schemeKinds().params).Body(lease).Do(ctx).Into(out)
	return out, err
}

func (l *leaseClient) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return l.rc.Delete().Namespace(l.ns).Resource("leases").Name(name).Body(&opts).Do(ctx).Error()
}

func (l *leaseClient) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	var timeout time.Duration
	if opts.TimeoutSeconds != nil {
		timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	opts.Watch = true
	return l.rc.Get().Namespace(l.ns).Resource("leases").VersionedParams(&opts, schemeKinds().params).Timeout(timeout).Watch(ctx)
}

// review asks the API server whether the Client's identity may do verb on
// leases in namespace (a SelfSubjectAccessReview).
func (c *Client) review(ctx context.Context, namespace, verb string) (bool, error) {
	out := &authzv1.SelfSubjectAccessReview{}
	in := &authzv1.SelfSubjectAccessReview{Spec: authzv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authzv1.ResourceAttributes{
		Namespace: namespace, Verb: verb, Group: coordv1.GroupName, Resource: "leases",
	}}}
	err := c.authz.Post().Resource("selfsubjectaccessreviews").Body(in).Do(ctx).Into(out)
	return out.Status.Allowed, err
}
