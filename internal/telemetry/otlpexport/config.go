package otlpexport

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// Protocols.
const (
	GRPC = "grpc"
	HTTP = "http/protobuf"
)

// Config is one signal's exporter, resolved by Resolve.
type Config struct {
	// Protocol is GRPC or HTTP.
	Protocol string
	// URL is where to send: for OTLP/HTTP the POST's URL, for OTLP/gRPC
	// the collector's scheme and host (the method's path is added). http
	// is plain (HTTP/2 without TLS, h2c, for gRPC), https is TLS.
	URL *url.URL
	// Headers are sent with every export.
	Headers map[string]string
	// Timeout bounds one export, its retries included.
	Timeout time.Duration
	// Gzip compresses the request.
	Gzip bool
	// TLS is the client's TLS configuration for https (nil: the system's).
	TLS *tls.Config
	// Temporality and Aggregation are the metric exporter's preferences
	// (nil: the SDK's defaults, cumulative and explicit buckets).
	Temporality sdkmetric.TemporalitySelector
	Aggregation sdkmetric.AggregationSelector
	// OnError is told what is worth a log line but is no failure: a
	// collector's partial success. Nil: dropped.
	OnError func(error)

	// backoff is the first wait before a retry (doubled each time, up to
	// maxBackoff); zero: the defaults. Tests shorten it.
	backoff, maxBackoff time.Duration
}

// Defaults of the OTLP exporter specification.
const (
	defaultTimeout  = 10 * time.Second
	defaultHTTPURL  = "http://localhost:4318"
	defaultGRPCURL  = "http://localhost:4317"
	envPrefix       = "OTEL_EXPORTER_OTLP_"
	defaultHTTPPath = "/v1/"
)

// Source is where Resolve reads from.
type Source struct {
	// Getenv reads the environment (nil: none).
	Getenv func(string) string
	// ReadFile reads certificate and key files.
	ReadFile func(string) ([]byte, error)
	// Endpoint and Headers are the config file's (its telemetry section),
	// used where the environment sets neither the general nor the
	// signal's own variable.
	Endpoint string
	Headers  map[string]string
	OnError  func(error)
}

// Resolve is the exporter of signal ("traces", "metrics", "logs") over
// protocol from the OTLP exporter variables the official Go exporters
// read — OTEL_EXPORTER_OTLP_{,SIGNAL_}ENDPOINT, _HEADERS, _TIMEOUT,
// _COMPRESSION, _CERTIFICATE, _CLIENT_CERTIFICATE, _CLIENT_KEY,
// _INSECURE, and for metrics _METRICS_TEMPORALITY_PREFERENCE and
// _METRICS_DEFAULT_HISTOGRAM_AGGREGATION — the signal's own variable
// winning over the general one. A value it cannot use is an error naming
// the variable (the official exporters log and ignore it).
func Resolve(src Source, signal, protocol string) (Config, error) {
	getenv := src.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	sig := strings.ToUpper(signal)
	// get is the signal's variable, else the general one; name is the one read.
	get := func(what string) (value, name string) {
		for _, n := range []string{envPrefix + sig + "_" + what, envPrefix + what} {
			if v := strings.TrimSpace(getenv(n)); v != "" {
				return v, n
			}
		}
		return "", ""
	}
	cfg := Config{Protocol: protocol, Timeout: defaultTimeout, OnError: src.OnError}
	if protocol != GRPC && protocol != HTTP {
		return cfg, fmt.Errorf("OTLP protocol %q: use %s or %s", protocol, HTTP, GRPC)
	}

	var err error
	if cfg.URL, err = endpoint(getenv, sig, signal, protocol, src.Endpoint); err != nil {
		return cfg, err
	}
	if v, name := get("INSECURE"); v != "" {
		// As the official exporters: true is plain, false is TLS, whatever
		// the endpoint's scheme says.
		cfg.URL.Scheme = "https"
		if strings.EqualFold(v, "true") {
			cfg.URL.Scheme = "http"
		} else if !strings.EqualFold(v, "false") {
			return cfg, fmt.Errorf("%s=%q: use true or false", name, v)
		}
	}

	cfg.Headers = src.Headers
	if v, name := get("HEADERS"); v != "" {
		if cfg.Headers, err = parseHeaders(v); err != nil {
			return cfg, fmt.Errorf("%s: %w", name, err)
		}
	}
	if v, name := get("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return cfg, fmt.Errorf("%s=%q: give milliseconds, e.g. 10000", name, v)
		}
		cfg.Timeout = time.Duration(ms) * time.Millisecond
	}
	if v, name := get("COMPRESSION"); v != "" {
		switch strings.ToLower(v) {
		case "gzip":
			cfg.Gzip = true
		case "none":
		default:
			return cfg, fmt.Errorf("%s=%q: use gzip or none", name, v)
		}
	}
	if cfg.TLS, err = tlsConfig(src, get); err != nil {
		return cfg, err
	}
	if cfg.TLS != nil && cfg.URL.Scheme == "http" {
		return cfg, fmt.Errorf("OTLP %s endpoint %s is plain http but a certificate is set: use an https:// endpoint, or unset the OTEL_EXPORTER_OTLP_*CERTIFICATE/*CLIENT_KEY variables", signal, cfg.URL.Redacted())
	}
	if signal == "metrics" {
		if err := metricPreferences(&cfg, getenv); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// endpoint is the signal's URL. The signal's own variable is used as
// given (no path: "/"); the general one and the config file's are a base
// to which OTLP/HTTP adds /v1/<signal>. For gRPC only the scheme and host
// count.
func endpoint(getenv func(string) string, sig, signal, protocol, file string) (*url.URL, error) {
	raw, name, base := strings.TrimSpace(getenv(envPrefix+sig+"_ENDPOINT")), envPrefix+sig+"_ENDPOINT", false
	if raw == "" {
		raw, name, base = strings.TrimSpace(getenv(envPrefix+"ENDPOINT")), envPrefix+"ENDPOINT", true
	}
	if raw == "" {
		raw, name, base = file, "the config file's telemetry.endpoint", true
	}
	if raw == "" {
		raw, name, base = defaultHTTPURL, "the default endpoint", true
		if protocol == GRPC {
			raw = defaultGRPCURL
		}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s %q: give a URL such as http://collector:%s", name, withoutCredentials(raw), map[bool]string{true: "4317", false: "4318"}[protocol == GRPC])
	}
	switch {
	case protocol == GRPC:
		u.Path, u.RawPath = "", ""
	case base:
		u.Path, u.RawPath = path.Join("/", u.Path, defaultHTTPPath+signal), ""
	case u.Path == "":
		u.Path = "/"
	}
	return u, nil
}

// withoutCredentials is an endpoint that is no URL as an error shows it:
// what comes before an "@" (user:password) left out.
func withoutCredentials(raw string) string {
	i := strings.LastIndex(raw, "@")
	if i < 0 {
		return raw
	}
	if scheme, _, ok := strings.Cut(raw[:i], "://"); ok {
		return scheme + "://…@" + raw[i+1:]
	}
	return "…@" + raw[i+1:]
}

// parseHeaders reads "k1=v1,k2=v2" (values percent-decoded, as the
// W3C baggage format the variable uses). An entry that is no pair is
// named by its place, not its text: it is often a secret written
// another way ("Authorization: Bearer ...").
func parseHeaders(v string) (map[string]string, error) {
	out := map[string]string{}
	for i, pair := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\"(),/:;<>?@[\\]{}") {
			return nil, fmt.Errorf("entry %d is not key=value (give key=value pairs separated by commas, e.g. Authorization=Bearer%%20TOKEN)", i+1)
		}
		dec, err := url.PathUnescape(val)
		if err != nil {
			return nil, fmt.Errorf("header %s: bad percent-encoding in its value", k)
		}
		out[k] = strings.TrimSpace(dec)
	}
	return out, nil
}

// tlsConfig is the TLS configuration the certificate variables ask for
// (nil when none is set).
func tlsConfig(src Source, get func(string) (string, string)) (*tls.Config, error) {
	ca, caName := get("CERTIFICATE")
	cert, certName := get("CLIENT_CERTIFICATE")
	key, keyName := get("CLIENT_KEY")
	if ca == "" && cert == "" && key == "" {
		return nil, nil
	}
	if src.ReadFile == nil {
		return nil, fmt.Errorf("otlp: no file reader for %s", caName+certName+keyName)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := src.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", caName, err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s=%s: no PEM certificate in the file", caName, ca)
		}
	}
	if (cert == "") != (key == "") {
		return nil, fmt.Errorf("a client certificate needs both OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY (or the signal's own): only %s is set", certName+keyName)
	}
	if cert != "" {
		c, err := src.ReadFile(cert)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", certName, err)
		}
		k, err := src.ReadFile(key)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", keyName, err)
		}
		pair, err := tls.X509KeyPair(c, k)
		if err != nil {
			return nil, fmt.Errorf("%s and %s: %w", certName, keyName, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// metricPreferences reads the metric exporter's temporality and default
// histogram aggregation.
func metricPreferences(cfg *Config, getenv func(string) string) error {
	name := envPrefix + "METRICS_TEMPORALITY_PREFERENCE"
	switch v := strings.ToLower(strings.TrimSpace(getenv(name))); v {
	case "", "cumulative":
	case "delta":
		cfg.Temporality = sdkmetric.DeltaTemporalitySelector
	case "lowmemory":
		cfg.Temporality = sdkmetric.LowMemoryTemporalitySelector
	default:
		return fmt.Errorf("%s=%q: use cumulative, delta or lowmemory", name, v)
	}
	name = envPrefix + "METRICS_DEFAULT_HISTOGRAM_AGGREGATION"
	switch v := strings.ToLower(strings.TrimSpace(getenv(name))); v {
	case "", "explicit_bucket_histogram":
	case "base2_exponential_bucket_histogram":
		cfg.Aggregation = func(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
			if k == sdkmetric.InstrumentKindHistogram {
				return sdkmetric.AggregationBase2ExponentialHistogram{MaxSize: 160, MaxScale: 20}
			}
			return sdkmetric.DefaultAggregationSelector(k)
		}
	default:
		return fmt.Errorf("%s=%q: use explicit_bucket_histogram or base2_exponential_bucket_histogram", name, v)
	}
	return nil
}
