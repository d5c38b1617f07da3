/// A server setting the URL layer cannot work with (a key that is not hex, keys and salts that do
/// not pair up, a preset that does not parse), reported once at startup rather than per request.
public struct URLConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the setting.
    public var message: String

    /// An error explained by `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
