import Foundation

/// OTLP's protobuf wire form of the logs this module writes (`ExportLogsServiceRequest`, which
/// has the field layout of `LogsData`), written by hand: the messages are few and fixed, and a
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
