import Logging
import Testing

/// A log handler that keeps every message so a test can await one: an event the library reports
/// only in its log (a partial body kept to resume) becomes something to wait for, not to poll.
struct RecordingLogHandler: LogHandler {
    /// The messages logged so far, shared by every copy of the handler.
    final class Messages: Sendable {
        let log = Watched([String]())

        /// Waits until a message containing `text` has been logged.
        @discardableResult
        func wait(for text: String, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
            await log.wait("a log message containing \"\(text)\"", sourceLocation: sourceLocation) {
                $0.contains { $0.contains(text) }
            }
        }
    }

    let messages: Messages
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Records the message followed by its metadata, ` key=value` in key order.
    func log(event: LogEvent) {
        let fields = metadata.merging(event.metadata ?? [:]) { $1 }
        let text = event.message.description + fields.keys.sorted().map { " \($0)=\(fields[$0]!)" }.joined()
        messages.log.update { $0.append(text) }
    }

    /// A logger at trace level that records into `messages`.
    static func logger(_ messages: Messages) -> Logger {
        var logger = Logger(label: "test") { _ in RecordingLogHandler(messages: messages) }
        logger.logLevel = .trace
        return logger
    }
}
