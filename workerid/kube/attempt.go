package kube

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/floeid/floe/internal/coordnet"
)

// retryGap is the least time between the starts of two attempts of one
// request: an API server that fails at once does not make a loop.
const retryGap = 50 * time.Millisecond

// attempts runs one API request, fn, one attempt at a time until an
// attempt succeeds or fails for good, ctx ends, or left (nil: no limit)
// reports no time left. Each attempt is bounded by attempt and by left.
// It returns the last attempt's error.
//
// Every request retried so may be applied twice harmlessly: a read, or a
// write carrying a resourceVersion precondition, which a second
// application fails with a conflict the caller sorts out.
func attempts(ctx context.Context, attempt time.Duration, left func() time.Duration, fn func(ctx context.Context) error) error {
	return coordnet.Attempts(ctx, attempt, retryGap, left, transient, fn)
}

// transient reports whether err leaves the request's result unknown or
// definitely not applied for a reason that may pass: no answer in time, a
// lost connection, a 5xx, a 429.
func transient(err error) bool {
	switch {
	case apierrors.IsConflict(err), apierrors.IsAlreadyExists(err), apierrors.IsNotFound(err),
		apierrors.IsForbidden(err), apierrors.IsUnauthorized(err), apierrors.IsInvalid(err),
		apierrors.IsBadRequest(err), apierrors.IsGone(err), apierrors.IsResourceExpired(err):
		return false
	case apierrors.IsTooManyRequests(err), apierrors.IsServerTimeout(err), apierrors.IsTimeout(err),
		apierrors.IsInternalError(err), apierrors.IsServiceUnavailable(err), apierrors.IsUnexpectedServerError(err):
		return true
	case errors.Is(err, context.DeadlineExceeded):
		return true
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Code >= 500
	}
	// Not an answer of the API server: a connection refused or reset, a
	// DNS error, a TLS failure. A canceled context was handled by the
	// caller.
	return !errors.Is(err, context.Canceled)
}

// explain wraps an API server's error for a request of verb on the Lease
// ns/name (name "" for a list): what a 403, a 401, a missing namespace, a
// 429 and a 5xx mean for floe.
func explain(err error, verb, ns, name string) error {
	obj := "Lease " + ns + "/" + name
	if name == "" {
		obj = "Leases in namespace " + ns
	}
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%w: the identity may not %s leases in namespace %s: check that the namespace exists and that a Role there on leases is bound to the identity (see deploy/kubernetes): %v",
			ErrForbidden, verb, ns, err)
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("%w: %s %s: the credentials were refused (an expired token, or one of a deleted service account?): %v", ErrUnauthorized, verb, obj, err)
	case apierrors.IsNotFound(err) && notFoundKind(err) == "namespaces":
		return fmt.Errorf("%s %s: namespace %s not found: %w", verb, obj, ns, err)
	case apierrors.IsTooManyRequests(err):
		return fmt.Errorf("%s %s: the API server is overloaded (429 Too Many Requests), and kept refusing after the retries it asked for: %w", verb, obj, err)
	}
	if code := statusCode(err); code >= 500 {
		return fmt.Errorf("%s %s: the API server answered %d %s: %w", verb, obj, code, http.StatusText(int(code)), err)
	}
	return fmt.Errorf("%s %s: %w", verb, obj, err)
}

// statusCode is the HTTP status of an API server's error, 0 for an error
// that is no answer of the API server.
func statusCode(err error) int32 {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Code
	}
	return 0
}

// notFoundKind is the kind of the object a 404 names ("leases",
// "namespaces").
func notFoundKind(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if d := status.Status().Details; d != nil {
			return d.Kind
		}
	}
	return ""
}
