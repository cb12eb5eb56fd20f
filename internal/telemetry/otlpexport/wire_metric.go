package otlpexport

import (
	"fmt"
	"math"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// encodeMetrics is an ExportMetricsServiceRequest of rm. A metric of an
// aggregation OTLP has no message for, or with an undefined temporality,
// is left out and reported in the error; the rest is still encoded.
func encodeMetrics(rm *metricdata.ResourceMetrics) ([]byte, error) {
	var errs []error
	b := appendMessage(nil, 1, func(b []byte) []byte { // ResourceMetrics
		b = appendMessage(b, 1, func(b []byte) []byte { // Resource, always written as the official exporter does
			if rm.Resource == nil {
				return b
			}
			return appendSet(b, 1, rm.Resource.Set())
		})
		for _, sm := range rm.ScopeMetrics {
			b = appendMessage(b, 2, func(b []byte) []byte { // ScopeMetrics
				b = appendMessage(b, 1, func(b []byte) []byte {
					b = appendString(b, 1, sm.Scope.Name)
					b = appendString(b, 2, sm.Scope.Version)
					return appendSet(b, 3, &sm.Scope.Attributes)
				})
				for _, m := range sm.Metrics {
					mark := len(b)
					var err error
					b = appendMessage(b, 2, func(b []byte) []byte {
						b, err = appendMetric(b, m)
						return b
					})
					if err != nil {
						errs = append(errs, fmt.Errorf("metric %s: %w", m.Name, err))
						b = b[:mark]
					}
				}
				return appendString(b, 3, sm.Scope.SchemaURL)
			})
		}
		if rm.Resource != nil {
			b = appendString(b, 3, rm.Resource.SchemaURL())
		}
		return b
	})
	if len(errs) > 0 {
		return b, fmt.Errorf("otlp: metrics left out: %v", errs)
	}
	return b, nil
}

// Metric fields of the data oneof.
const (
	metricGauge       = 5
	metricSum         = 7
	metricHistogram   = 9
	metricExpHist     = 10
	metricSummary     = 11
	temporalityDelta  = 1
	temporalityCumul  = 2
	packedFixed64Size = 8
)

func appendMetric(b []byte, m metricdata.Metrics) ([]byte, error) {
	b = appendString(b, 1, m.Name)
	b = appendString(b, 2, m.Description)
	b = appendString(b, 3, m.Unit)
	switch d := m.Data.(type) {
	case metricdata.Gauge[int64]:
		return appendMessage(b, metricGauge, func(b []byte) []byte { return appendNumberPoints(b, d.DataPoints) }), nil
	case metricdata.Gauge[float64]:
		return appendMessage(b, metricGauge, func(b []byte) []byte { return appendNumberPoints(b, d.DataPoints) }), nil
	case metricdata.Sum[int64]:
		return appendSum(b, d)
	case metricdata.Sum[float64]:
		return appendSum(b, d)
	case metricdata.Histogram[int64]:
		return appendHistogram(b, d)
	case metricdata.Histogram[float64]:
		return appendHistogram(b, d)
	case metricdata.ExponentialHistogram[int64]:
		return appendExpHistogram(b, d)
	case metricdata.ExponentialHistogram[float64]:
		return appendExpHistogram(b, d)
	case metricdata.Summary:
		return appendMessage(b, metricSummary, func(b []byte) []byte { return appendSummaryPoints(b, d.DataPoints) }), nil
	}
	return b, fmt.Errorf("aggregation %T has no OTLP form", m.Data)
}

// temporality is OTLP's AggregationTemporality (DELTA 1, CUMULATIVE 2:
// the other way round from the SDK's).
func temporality(t metricdata.Temporality) (uint64, error) {
	switch t {
	case metricdata.DeltaTemporality:
		return temporalityDelta, nil
	case metricdata.CumulativeTemporality:
		return temporalityCumul, nil
	}
	return 0, fmt.Errorf("temporality %v is neither delta nor cumulative", t)
}

func appendSum[N int64 | float64](b []byte, s metricdata.Sum[N]) ([]byte, error) {
	t, err := temporality(s.Temporality)
	if err != nil {
		return b, err
	}
	return appendMessage(b, metricSum, func(b []byte) []byte {
		b = appendNumberPoints(b, s.DataPoints)
		b = appendVarint(b, 2, t)
		return appendVarint(b, 3, encodeBool(s.IsMonotonic))
	}), nil
}

// appendNumberPoints appends NumberDataPoints as field 1 (of Gauge or Sum).
func appendNumberPoints[N int64 | float64](b []byte, pts []metricdata.DataPoint[N]) []byte {
	for _, p := range pts {
		b = appendMessage(b, 1, func(b []byte) []byte {
			b = appendFixed64(b, 2, unixNano(p.StartTime))
			b = appendFixed64(b, 3, unixNano(p.Time))
			b = appendNumber(b, 4, 6, p.Value)
			b = appendExemplars(b, 5, p.Exemplars)
			return appendSet(b, 7, &p.Attributes)
		})
	}
	return b
}

// appendNumber writes a oneof number: a double as field asDouble, an
// integer as sfixed64 field asInt.
func appendNumber[N int64 | float64](b []byte, asDouble, asInt wireNumber, v N) []byte {
	switch v := any(v).(type) {
	case int64:
		b = appendTag(b, asInt, fixed64Type)
		return appendFixed64Raw(b, uint64(v)) //nolint:gosec // sfixed64: two's complement
	case float64:
		return appendDoubleAlways(b, asDouble, v)
	}
	return b
}

func appendExemplars[N int64 | float64](b []byte, num wireNumber, es []metricdata.Exemplar[N]) []byte {
	for _, e := range es {
		b = appendMessage(b, num, func(b []byte) []byte {
			b = appendFixed64(b, 2, unixNano(e.Time))
			b = appendNumber(b, 3, 6, e.Value)
			b = appendBytes(b, 4, e.SpanID)
			b = appendBytes(b, 5, e.TraceID)
			return appendKeyValues(b, 7, e.FilteredAttributes)
		})
	}
	return b
}

func appendHistogram[N int64 | float64](b []byte, h metricdata.Histogram[N]) ([]byte, error) {
	t, err := temporality(h.Temporality)
	if err != nil {
		return b, err
	}
	return appendMessage(b, metricHistogram, func(b []byte) []byte {
		for _, p := range h.DataPoints {
			b = appendMessage(b, 1, func(b []byte) []byte {
				b = appendFixed64(b, 2, unixNano(p.StartTime))
				b = appendFixed64(b, 3, unixNano(p.Time))
				b = appendFixed64(b, 4, p.Count)
				b = appendDoubleAlways(b, 5, float64(p.Sum))
				if len(p.BucketCounts) > 0 {
					b = appendTag(b, 6, bytesType)
					b = appendVarintRaw(b, uint64(len(p.BucketCounts)*packedFixed64Size))
					for _, c := range p.BucketCounts {
						b = appendFixed64Raw(b, c)
					}
				}
				if len(p.Bounds) > 0 {
					b = appendTag(b, 7, bytesType)
					b = appendVarintRaw(b, uint64(len(p.Bounds)*packedFixed64Size))
					for _, x := range p.Bounds {
						b = appendFixed64Raw(b, math.Float64bits(x))
					}
				}
				b = appendExemplars(b, 8, p.Exemplars)
				b = appendSet(b, 9, &p.Attributes)
				if v, ok := p.Min.Value(); ok {
					b = appendDoubleAlways(b, 11, float64(v))
				}
				if v, ok := p.Max.Value(); ok {
					b = appendDoubleAlways(b, 12, float64(v))
				}
				return b
			})
		}
		return appendVarint(b, 2, t)
	}), nil
}

func appendExpHistogram[N int64 | float64](b []byte, h metricdata.ExponentialHistogram[N]) ([]byte, error) {
	t, err := temporality(h.Temporality)
	if err != nil {
		return b, err
	}
	return appendMessage(b, metricExpHist, func(b []byte) []byte {
		for _, p := range h.DataPoints {
			b = appendMessage(b, 1, func(b []byte) []byte {
				b = appendSet(b, 1, &p.Attributes)
				b = appendFixed64(b, 2, unixNano(p.StartTime))
				b = appendFixed64(b, 3, unixNano(p.Time))
				b = appendFixed64(b, 4, p.Count)
				b = appendDoubleAlways(b, 5, float64(p.Sum))
				b = appendVarint(b, 6, encodeZigZag(int64(p.Scale)))
				b = appendFixed64(b, 7, p.ZeroCount)
				b = appendBuckets(b, 8, p.PositiveBucket)
				b = appendBuckets(b, 9, p.NegativeBucket)
				b = appendExemplars(b, 11, p.Exemplars)
				if v, ok := p.Min.Value(); ok {
					b = appendDoubleAlways(b, 12, float64(v))
				}
				if v, ok := p.Max.Value(); ok {
					b = appendDoubleAlways(b, 13, float64(v))
				}
				return appendDouble(b, 14, p.ZeroThreshold)
			})
		}
		return appendVarint(b, 2, t)
	}), nil
}

// appendBuckets appends an ExponentialHistogramDataPoint.Buckets, always
// (the official exporter writes both, empty or not).
func appendBuckets(b []byte, num wireNumber, bk metricdata.ExponentialBucket) []byte {
	return appendMessage(b, num, func(b []byte) []byte {
		b = appendVarint(b, 1, encodeZigZag(int64(bk.Offset)))
		if len(bk.Counts) == 0 {
			return b
		}
		size := 0
		for _, c := range bk.Counts {
			size += sizeVarint(c)
		}
		b = appendTag(b, 2, bytesType)
		b = appendVarintRaw(b, uint64(size)) //nolint:gosec // a size
		for _, c := range bk.Counts {
			b = appendVarintRaw(b, c)
		}
		return b
	})
}

func appendSummaryPoints(b []byte, pts []metricdata.SummaryDataPoint) []byte {
	for _, p := range pts {
		b = appendMessage(b, 1, func(b []byte) []byte {
			b = appendFixed64(b, 2, unixNano(p.StartTime))
			b = appendFixed64(b, 3, unixNano(p.Time))
			b = appendFixed64(b, 4, p.Count)
			b = appendDouble(b, 5, p.Sum)
			for _, q := range p.QuantileValues {
				b = appendMessage(b, 6, func(b []byte) []byte {
					b = appendDouble(b, 1, q.Quantile)
					return appendDouble(b, 2, q.Value)
				})
			}
			return appendSet(b, 7, &p.Attributes)
		})
	}
	return b
}
