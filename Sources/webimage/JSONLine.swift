import Foundation
import WebImage
import WebImageServer

/// Builds one line of JSON output with keys in the order they are added.
struct JSONLine {
    private var parts: [String] = []

    mutating func add(_ key: String, _ value: String?) {
        parts.append("\(Self.quote(key)):\(value.map(Self.quote) ?? "null")")
    }
    mutating func add(_ key: String, _ value: Int) { parts.append("\(Self.quote(key)):\(value)") }
    mutating func add(_ key: String, _ value: Bool) { parts.append("\(Self.quote(key)):\(value)") }
    mutating func add(_ key: String, _ value: Double) {
        parts.append("\(Self.quote(key)):\(String(format: "%.3f", value))")
    }
    mutating func add(_ key: String, raw: String) { parts.append("\(Self.quote(key)):\(raw)") }

    /// The `{"code":…,"name":…,"message":…}` object for an error (plus httpStatus when known).
    mutating func addError(_ error: any Error) {
        var object = JSONLine()
        let e = error as? WebImageError ?? WebImageError(.badImageData, String(describing: error))
        object.add("code", e.code.rawValue)
        object.add("name", e.code.name)
        object.add("message", e.message)
        if let status = e.httpStatus { object.add("httpStatus", status) }
        add("error", raw: object.text)
    }

    var text: String { "{" + parts.joined(separator: ",") + "}" }

    /// `s` as a JSON string literal (the server's log lines escape strings the same way).
    static func quote(_ s: String) -> String { JSONLogHandler.quoted(s) }
}
