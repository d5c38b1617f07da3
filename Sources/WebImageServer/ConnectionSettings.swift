import Foundation

/// A connection setting of a ``ServerConfiguration`` out of its range, reported when the server
/// is made.
public struct ConnectionSettingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the setting.
    public var message: String

    /// An error explained by `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

extension ServerConfiguration {
    /// The longest ``readTimeout`` and ``keepAliveTimeout``, in seconds (an hour).
    public static let maxConnectionTimeout: TimeInterval = 3600
    /// The largest ``maxConnections``.
    public static let maxConnectionLimit = 1_000_000

    /// Throws a ``ConnectionSettingError`` for a timeout that is not a positive number of seconds
    /// up to ``maxConnectionTimeout``, or a connection limit outside 1…``maxConnectionLimit``.
    public func checkConnectionSettings() throws {
        for (name, value) in [("readTimeout", readTimeout), ("keepAliveTimeout", keepAliveTimeout)] {
            guard value.isFinite, value > 0, value <= Self.maxConnectionTimeout else {
                throw ConnectionSettingError("\(name) takes seconds above 0 and at most \(Int(Self.maxConnectionTimeout)), got \(value).")
            }
        }
        if let maxConnections, !(1...Self.maxConnectionLimit).contains(maxConnections) {
            throw ConnectionSettingError("maxConnections takes 1–\(Self.maxConnectionLimit), got \(maxConnections).")
        }
    }
}
