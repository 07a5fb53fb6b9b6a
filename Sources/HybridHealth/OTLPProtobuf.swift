import Foundation

/// OTLP's protobuf wire form of the logs this module writes (`ExportLogsServiceRequest`, which
/// has the field layout of `LogsData`) and of their metrics (``OTLPMetrics``,
/// `ExportMetricsServiceRequest`), written by hand: the messages are few and fixed, and a
/// protobuf runtime would be a dependency for ~60 lines. Field numbers are
/// opentelemetry-proto v1's (`logs/v1/logs.proto`, `common/v1/common.proto`); what decodes it in
/// the tests is the official `opentelemetry-proto` package, not this file.
enum OTLPProtobuf {
    /// `data` as an `ExportLogsServiceRequest`.
    static func encode(_ data: OTLPLogsData) -> Data {
        var out = Writer()
        for resourceLogs in data.resourceLogs {
            out.message(1) { resource in                                   // ExportLogsServiceRequest.resource_logs
                resource.message(1) { $0.attributes(1, resourceLogs.resource.attributes) }   // ResourceLogs.resource
                for scopeLogs in resourceLogs.scopeLogs {
                    resource.message(2) { scope in                         // ResourceLogs.scope_logs
                        scope.message(1) { $0.string(1, scopeLogs.scope.name) }   // ScopeLogs.scope (InstrumentationScope.name)
                        for record in scopeLogs.logRecords {
                            scope.message(2) { log(&$0, record) }          // ScopeLogs.log_records
                        }
                    }
                }
            }
        }
        return Data(out.bytes)
    }

    /// `metrics` as an `ExportMetricsServiceRequest` (`metrics/v1/metrics.proto`): delta
    /// temporality (each window is what happened since the last), the same resource as the logs.
    static func encode(_ metrics: OTLPMetrics, serviceName: String, serviceVersion: String) -> Data {
        let delta: UInt64 = 1                                              // AGGREGATION_TEMPORALITY_DELTA
        let resource = [OTLPAttribute("service.name", .string(serviceName)), OTLPAttribute("service.version", .string(serviceVersion))]
        let releases = metrics.counts.keys.sorted {
            ($0.packageID ?? "", $0.packageVersion ?? -1, $0.engine) < ($1.packageID ?? "", $1.packageVersion ?? -1, $1.engine)
        }
        var out = Writer()
        out.message(1) { resourceMetrics in                                // ExportMetricsServiceRequest.resource_metrics
            resourceMetrics.message(1) { $0.attributes(1, resource) }      // ResourceMetrics.resource
            resourceMetrics.message(2) { scope in                          // ResourceMetrics.scope_metrics
                scope.message(1) { $0.string(1, "hybridkit") }             // ScopeMetrics.scope
                scope.message(2) { metric in                               // ScopeMetrics.metrics
                    metric.string(1, "hybridkit.events")                   // Metric.name
                    metric.string(2, "HybridKit health events, by event.name")   // description
                    metric.string(3, "{event}")                            // unit
                    metric.message(7) { sum in                             // Metric.sum
                        for release in releases {
                            for (name, count) in (metrics.counts[release] ?? [:]).sorted(by: { $0.key < $1.key }) {
                                sum.message(1) { point in                  // Sum.data_points (NumberDataPoint)
                                    point.fixed64(2, metrics.start)        // start_time_unix_nano
                                    point.fixed64(3, metrics.end)          // time_unix_nano
                                    point.fixed64(6, count)                // as_int (sfixed64)
                                    point.attributes(7, [OTLPAttribute("event.name", .string(name))] + release.attributes)
                                }
                            }
                        }
                        sum.varint(2, delta)                               // aggregation_temporality
                        sum.varint(3, 1)                                   // is_monotonic
                    }
                }
                for name in OTLPMetrics.histogramNames {
                    guard let points = metrics.histograms[name], !points.isEmpty else { continue }
                    scope.message(2) { metric in
                        metric.string(1, name)
                        metric.string(3, "ms")
                        metric.message(9) { histogram in                   // Metric.histogram
                            for release in releases {
                                guard let point = points[release], point.count > 0 else { continue }
                                histogram.message(1) { histogramPoint(&$0, point, release: release, metrics: metrics) }
                            }
                            histogram.varint(2, delta)                     // aggregation_temporality
                        }
                    }
                }
            }
        }
        return Data(out.bytes)
    }

    private static func histogramPoint(_ out: inout Writer, _ point: OTLPMetrics.Histogram, release: OTLPMetrics.Release,
                                       metrics: OTLPMetrics) {
        out.fixed64(2, metrics.start)                                     // HistogramDataPoint.start_time_unix_nano
        out.fixed64(3, metrics.end)                                       // time_unix_nano
        out.fixed64(4, point.count)                                       // count
        out.fixed64(5, point.sum.bitPattern)                              // sum (double)
        out.packed(6, point.buckets)                                      // bucket_counts (fixed64)
        out.packed(7, OTLPMetrics.bounds.map(\.bitPattern))               // explicit_bounds (double)
        out.attributes(9, release.attributes)                             // attributes
        out.fixed64(11, point.min.bitPattern)                             // min
        out.fixed64(12, point.max.bitPattern)                             // max
    }

    private static func log(_ out: inout Writer, _ record: OTLPLogRecord) {
        out.fixed64(1, UInt64(record.timeUnixNano) ?? 0)                  // time_unix_nano
        out.varint(2, UInt64(record.severityNumber))                      // severity_number
        out.string(3, record.severityText)                                // severity_text
        out.message(5) { value(&$0, record.body) }                         // body
        out.attributes(6, record.attributes)                              // attributes
        out.fixed64(11, UInt64(record.observedTimeUnixNano) ?? 0)         // observed_time_unix_nano
        if let name = record.eventName { out.string(12, name) }           // event_name
    }

    fileprivate static func value(_ out: inout Writer, _ value: OTLPValue) {
        if let string = value.stringValue {
            out.string(1, string)                                         // AnyValue.string_value
        } else if let bool = value.boolValue {
            out.varint(2, bool ? 1 : 0)                                   // bool_value
        } else if let int = value.intValue.flatMap(Int64.init) {
            out.varint(3, UInt64(bitPattern: int))                        // int_value (int64: two's complement varint)
        } else if let double = value.doubleValue {
            out.key(4, wire: 1)                                           // double_value
            out.littleEndian(double.bitPattern)
        }
    }

    /// A protobuf writer: varints, fixed 64-bit values, length-delimited strings and messages.
    fileprivate struct Writer {
        var bytes: [UInt8] = []

        mutating func raw(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(value & 0x7F) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }
        mutating func key(_ field: Int, wire: Int) { raw(UInt64(field << 3 | wire)) }
        mutating func varint(_ field: Int, _ value: UInt64) { key(field, wire: 0); raw(value) }
        mutating func littleEndian(_ value: UInt64) { for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) } }
        mutating func fixed64(_ field: Int, _ value: UInt64) { key(field, wire: 1); littleEndian(value) }
        /// A packed repeated field of 64-bit fixed-width values (`fixed64`, or a `double`'s bits).
        mutating func packed(_ field: Int, _ values: [UInt64]) {
            key(field, wire: 2)
            raw(UInt64(values.count * 8))
            for value in values { littleEndian(value) }
        }
        mutating func string(_ field: Int, _ text: String) {
            key(field, wire: 2)
            raw(UInt64(text.utf8.count))
            bytes.append(contentsOf: text.utf8)
        }
        mutating func message(_ field: Int, _ body: (inout Writer) -> Void) {
            var inner = Writer()
            body(&inner)
            key(field, wire: 2)
            raw(UInt64(inner.bytes.count))
            bytes.append(contentsOf: inner.bytes)
        }
        mutating func attributes(_ field: Int, _ attributes: [OTLPAttribute]) {
            for attribute in attributes {
                message(field) { pair in                                  // KeyValue
                    pair.string(1, attribute.key)
                    pair.message(2) { OTLPProtobuf.value(&$0, attribute.value) }
                }
            }
        }
    }
}
