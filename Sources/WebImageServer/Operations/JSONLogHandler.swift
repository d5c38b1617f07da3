import Foundation
import Logging

/// A swift-log handler that writes each entry as one JSON object per line (time, level, label,
/// message, then the metadata as fields), for log collectors that parse JSON.
/// `webimage serve --log-format json` installs it.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    /// A handler for `label` writing lines to standard error.
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.init(label: label, metadataProvider: metadataProvider) { line in
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// A handler for `label` handing each line (with its newline) to `write`.
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil,
                write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { _, new in new } }
        if let own = event.metadata { fields.merge(own) { _, new in new } }
        let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
        var line = "{\"time\":" + Self.quoted(time) + ",\"level\":" + Self.quoted(event.level.rawValue)
            + ",\"label\":" + Self.quoted(label) + ",\"message\":" + Self.quoted(event.message.description)
        for key in fields.keys.sorted() where !["time", "level", "label", "message"].contains(key) {
            line += "," + Self.quoted(key) + ":" + Self.json(fields[key]!)
        }
        write(line + "}\n")
    }

    static func json(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let string): return quoted(string)
        case .stringConvertible(let convertible): return quoted(convertible.description)
        case .array(let values): return "[" + values.map(json).joined(separator: ",") + "]"
        case .dictionary(let fields):
            return "{" + fields.keys.sorted().map { quoted($0) + ":" + json(fields[$0]!) }.joined(separator: ",") + "}"
        }
    }

    /// `string` as a JSON string literal: quotes, backslashes and control characters escaped.
    public static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
