package otlpexport

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
)

// Every aggregation metricdata has (sums of both temporalities, gauges,
// explicit and exponential histograms, summaries; int and float; with
// exemplars) decodes with the official protobufs to what the official
// exporter would send; a metric OTLP cannot carry is left out and named.
func TestEncodeMetricsRoundTrip(t *testing.T) {
	t0, t1 := time.Unix(1700000000, 1), time.Unix(1700000060, 2)
	attrs := attribute.NewSet(attribute.String("model", "m"), attribute.Int("n", 3))
	tid := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	sid := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	exI := []metricdata.Exemplar[int64]{{FilteredAttributes: []attribute.KeyValue{attribute.Bool("f", true)}, Time: t1, Value: -5, SpanID: sid, TraceID: tid}}
	exF := []metricdata.Exemplar[float64]{{Time: t1, Value: 0.25}}
	res := testResource(t, attribute.String("service.name", "tandem"))
	scope := instrumentation.Scope{Name: "tandem", Version: "1", SchemaURL: "https://s", Attributes: attribute.NewSet(attribute.String("a", "b"))}
	rm := &metricdata.ResourceMetrics{Resource: res, ScopeMetrics: []metricdata.ScopeMetrics{{Scope: scope, Metrics: []metricdata.Metrics{
		{Name: "sum.int", Description: "d", Unit: "tokens", Data: metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true,
			DataPoints: []metricdata.DataPoint[int64]{{Attributes: attrs, StartTime: t0, Time: t1, Value: 100, Exemplars: exI}, {StartTime: t0, Time: t1, Value: 0}}}},
		{Name: "sum.float", Data: metricdata.Sum[float64]{Temporality: metricdata.DeltaTemporality,
			DataPoints: []metricdata.DataPoint[float64]{{Attributes: attrs, StartTime: t0, Time: t1, Value: 0.5, Exemplars: exF}}}},
		{Name: "gauge.int", Data: metricdata.Gauge[int64]{DataPoints: []metricdata.DataPoint[int64]{{Time: t1, Value: -3}}}},
		{Name: "gauge.float", Data: metricdata.Gauge[float64]{DataPoints: []metricdata.DataPoint[float64]{{Time: t1, Value: 1.5}}}},
		{Name: "bad", Data: metricdata.Sum[int64]{DataPoints: []metricdata.DataPoint[int64]{{Value: 1}}}}, // undefined temporality
		{Name: "hist", Unit: "s", Data: metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality, DataPoints: []metricdata.HistogramDataPoint[float64]{
			{Attributes: attrs, StartTime: t0, Time: t1, Count: 6, Bounds: []float64{0, 5, 10}, BucketCounts: []uint64{1, 2, 3, 0}, Min: metricdata.NewExtrema(0.1), Max: metricdata.NewExtrema(9.5), Sum: 20.5, Exemplars: exF},
			{Time: t1, Count: 0},
		}}},
		{Name: "hist.int", Data: metricdata.Histogram[int64]{Temporality: metricdata.DeltaTemporality, DataPoints: []metricdata.HistogramDataPoint[int64]{
			{Time: t1, Count: 2, Bounds: []float64{1}, BucketCounts: []uint64{1, 1}, Sum: 7, Max: metricdata.NewExtrema[int64](6)},
		}}},
		{Name: "exp", Data: metricdata.ExponentialHistogram[float64]{Temporality: metricdata.CumulativeTemporality, DataPoints: []metricdata.ExponentialHistogramDataPoint[float64]{
			{Attributes: attrs, StartTime: t0, Time: t1, Count: 10, Min: metricdata.NewExtrema(-2.0), Max: metricdata.NewExtrema(300.0), Sum: 400, Scale: -3, ZeroCount: 2, ZeroThreshold: 1e-9,
				PositiveBucket: metricdata.ExponentialBucket{Offset: -2, Counts: []uint64{1, 0, 300, 4}}, NegativeBucket: metricdata.ExponentialBucket{Offset: 5, Counts: []uint64{1}}, Exemplars: exF},
		}}},
		{Name: "exp.int", Data: metricdata.ExponentialHistogram[int64]{Temporality: metricdata.DeltaTemporality, DataPoints: []metricdata.ExponentialHistogramDataPoint[int64]{
			{Time: t1, Count: 1, Sum: 3, Scale: 20},
		}}},
		{Name: "summary", Data: metricdata.Summary{DataPoints: []metricdata.SummaryDataPoint{
			{Attributes: attrs, StartTime: t0, Time: t1, Count: 4, Sum: 10, QuantileValues: []metricdata.QuantileValue{{Quantile: 0, Value: 1}, {Quantile: 0.5, Value: 2.5}, {Quantile: 1, Value: 4}}},
		}}},
	}}}}
	body, err := encodeMetrics(rm)
	if err == nil || !strings.Contains(err.Error(), "metric bad") {
		t.Errorf("err = %v, want it to name the metric left out", err)
	}
	var got colmetrics.ExportMetricsServiceRequest
	decodeInto(t, body, &got)

	f := func(v float64) *float64 { return &v }
	at := wantSet(&attrs)
	u := func(t time.Time) uint64 { return uint64(t.UnixNano()) }
	ex := []*metricspb.Exemplar{{FilteredAttributes: wantKVs(exI[0].FilteredAttributes), TimeUnixNano: u(t1), Value: &metricspb.Exemplar_AsInt{AsInt: -5}, SpanId: sid, TraceId: tid}}
	exf := []*metricspb.Exemplar{{TimeUnixNano: u(t1), Value: &metricspb.Exemplar_AsDouble{AsDouble: 0.25}}}
	want := &colmetrics.ExportMetricsServiceRequest{ResourceMetrics: []*metricspb.ResourceMetrics{{
		Resource: wantResource(res), SchemaUrl: res.SchemaURL(),
		ScopeMetrics: []*metricspb.ScopeMetrics{{Scope: wantScope(scope), SchemaUrl: scope.SchemaURL, Metrics: []*metricspb.Metric{
			{Name: "sum.int", Description: "d", Unit: "tokens", Data: &metricspb.Metric_Sum{Sum: &metricspb.Sum{
				AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE, IsMonotonic: true,
				DataPoints: []*metricspb.NumberDataPoint{
					{Attributes: at, StartTimeUnixNano: u(t0), TimeUnixNano: u(t1), Value: &metricspb.NumberDataPoint_AsInt{AsInt: 100}, Exemplars: ex},
					{StartTimeUnixNano: u(t0), TimeUnixNano: u(t1), Value: &metricspb.NumberDataPoint_AsInt{AsInt: 0}},
				}}}},
			{Name: "sum.float", Data: &metricspb.Metric_Sum{Sum: &metricspb.Sum{
				AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA,
				DataPoints:             []*metricspb.NumberDataPoint{{Attributes: at, StartTimeUnixNano: u(t0), TimeUnixNano: u(t1), Value: &metricspb.NumberDataPoint_AsDouble{AsDouble: 0.5}, Exemplars: exf}},
			}}},
			{Name: "gauge.int", Data: &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{DataPoints: []*metricspb.NumberDataPoint{{TimeUnixNano: u(t1), Value: &metricspb.NumberDataPoint_AsInt{AsInt: -3}}}}}},
			{Name: "gauge.float", Data: &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{DataPoints: []*metricspb.NumberDataPoint{{TimeUnixNano: u(t1), Value: &metricspb.NumberDataPoint_AsDouble{AsDouble: 1.5}}}}}},
			{Name: "hist", Unit: "s", Data: &metricspb.Metric_Histogram{Histogram: &metricspb.Histogram{
				AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE,
				DataPoints: []*metricspb.HistogramDataPoint{
					{Attributes: at, StartTimeUnixNano: u(t0), TimeUnixNano: u(t1), Count: 6, Sum: f(20.5), BucketCounts: []uint64{1, 2, 3, 0}, ExplicitBounds: []float64{0, 5, 10}, Exemplars: exf, Min: f(0.1), Max: f(9.5)},
					{TimeUnixNano: u(t1), Sum: f(0)},
				}}}},
			{Name: "hist.int", Data: &metricspb.Metric_Histogram{Histogram: &metricspb.Histogram{
				AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA,
				DataPoints:             []*metricspb.HistogramDataPoint{{TimeUnixNano: u(t1), Count: 2, Sum: f(7), BucketCounts: []uint64{1, 1}, ExplicitBounds: []float64{1}, Max: f(6)}},
			}}},
			{Name: "exp", Data: &metricspb.Metric_ExponentialHistogram{ExponentialHistogram: &metricspb.ExponentialHistogram{
				AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE,
				DataPoints: []*metricspb.ExponentialHistogramDataPoint{{Attributes: at, StartTimeUnixNano: u(t0), TimeUnixNano: u(t1), Count: 10, Sum: f(400), Scale: -3, ZeroCount: 2, ZeroThreshold: 1e-9,
					Positive:  &metricspb.ExponentialHistogramDataPoint_Buckets{Offset: -2, BucketCounts: []uint64{1, 0, 300, 4}},
					Negative:  &metricspb.ExponentialHistogramDataPoint_Buckets{Offset: 5, BucketCounts: []uint64{1}},
					Exemplars: exf, Min: f(-2), Max: f(300)}},
			}}},
			{Name: "exp.int", Data: &metricspb.Metric_ExponentialHistogram{ExponentialHistogram: &metricspb.ExponentialHistogram{
				AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA,
				DataPoints: []*metricspb.ExponentialHistogramDataPoint{{TimeUnixNano: u(t1), Count: 1, Sum: f(3), Scale: 20,
					Positive: &metricspb.ExponentialHistogramDataPoint_Buckets{}, Negative: &metricspb.ExponentialHistogramDataPoint_Buckets{}}},
			}}},
			{Name: "summary", Data: &metricspb.Metric_Summary{Summary: &metricspb.Summary{DataPoints: []*metricspb.SummaryDataPoint{{
				Attributes: at, StartTimeUnixNano: u(t0), TimeUnixNano: u(t1), Count: 4, Sum: 10,
				QuantileValues: []*metricspb.SummaryDataPoint_ValueAtQuantile{{Quantile: 0, Value: 1}, {Quantile: 0.5, Value: 2.5}, {Quantile: 1, Value: 4}},
			}}}}},
		}}},
	}}}
	same(t, "ExportMetricsServiceRequest", &got, want)
}

// What the SDK itself produces — counters, an explicit and an
// exponential histogram, an observable gauge — decodes with the official
// protobufs, with its values.
func TestEncodeMetricsFromSDK(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(testResource(t, attribute.String("service.name", "tandem"))),
		sdkmetric.WithView(sdkmetric.NewView(sdkmetric.Instrument{Name: "exp"}, sdkmetric.Stream{Aggregation: sdkmetric.AggregationBase2ExponentialHistogram{MaxSize: 160, MaxScale: 20}})))
	m := mp.Meter("tandem")
	ctx := context.Background()
	c, _ := m.Int64Counter("count")
	c.Add(ctx, 3, metric.WithAttributes(attribute.String("type", "input")))
	fc, _ := m.Float64Counter("cost")
	fc.Add(ctx, 0.25)
	h, _ := m.Float64Histogram("hist")
	h.Record(ctx, 2)
	h.Record(ctx, 700)
	e, _ := m.Float64Histogram("exp")
	for _, v := range []float64{1, 2, 4, 1000} {
		e.Record(ctx, v)
	}
	_, _ = m.Int64ObservableGauge("gauge", metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error { o.Observe(42); return nil }))
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	body, err := encodeMetrics(&rm)
	if err != nil {
		t.Fatal(err)
	}
	var got colmetrics.ExportMetricsServiceRequest
	decodeInto(t, body, &got)
	byName := map[string]*metricspb.Metric{}
	for _, m := range got.ResourceMetrics[0].ScopeMetrics[0].Metrics {
		byName[m.Name] = m
	}
	if p := byName["count"].GetSum().GetDataPoints(); len(p) != 1 || p[0].GetAsInt() != 3 || wantKVs([]attribute.KeyValue{attribute.String("type", "input")})[0].Value.GetStringValue() != p[0].Attributes[0].Value.GetStringValue() {
		t.Errorf("count: %v", p)
	}
	if p := byName["cost"].GetSum().GetDataPoints(); len(p) != 1 || p[0].GetAsDouble() != 0.25 {
		t.Errorf("cost: %v", p)
	}
	if p := byName["hist"].GetHistogram().GetDataPoints(); len(p) != 1 || p[0].Count != 2 || p[0].GetSum() != 702 || p[0].GetMax() != 700 || len(p[0].BucketCounts) != len(p[0].ExplicitBounds)+1 {
		t.Errorf("hist: %v", p)
	}
	if p := byName["exp"].GetExponentialHistogram().GetDataPoints(); len(p) != 1 || p[0].Count != 4 || p[0].GetSum() != 1007 || sum(p[0].GetPositive().GetBucketCounts()) != 4 {
		t.Errorf("exp: %v", p)
	}
	if p := byName["gauge"].GetGauge().GetDataPoints(); len(p) != 1 || p[0].GetAsInt() != 42 {
		t.Errorf("gauge: %v", p)
	}
}

func sum(xs []uint64) (n uint64) {
	for _, x := range xs {
		n += x
	}
	return n
}
