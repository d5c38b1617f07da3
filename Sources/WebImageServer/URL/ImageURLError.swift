/// Why a request URL was refused: the HTTP status to answer with, a stable machine name, and a
/// message for a person that names the offending part (option, argument, signature, source).
///
/// Statuses follow our issue rather than imgproxy (which answers 404 for every bad URL): 400 for a
/// malformed URL, an unknown option or a bad argument; 403 for a bad signature or a security option
/// that is not allowed; 410 for a URL past its `expires` time.
public struct ImageURLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status: 400, 403 or 410.
    public var status: Int
    /// A stable, machine-readable name: `invalid_url`, `unknown_option`, `invalid_argument`,
    /// `unknown_preset`, `invalid_signature`, `missing_signature`, `forbidden_option` or `expired`.
    public var name: String
    /// What went wrong, for a person.
    public var message: String

    /// An error answered with `status`, named `name`, explained by `message`.
    public init(status: Int, name: String, message: String) {
        self.status = status
        self.name = name
        self.message = message
    }

    /// `STATUS name: message`, for logs and test failures.
    public var description: String { "\(status) \(name): \(message)" }

    /// The URL's shape is wrong (no signature or path, a bad source encoding, several extensions).
    public static func invalidURL(_ message: String) -> ImageURLError {
        ImageURLError(status: 400, name: "invalid_url", message: message)
    }

    /// An option name this server does not know.
    public static func unknownOption(_ name: String, supportedByImgproxy: Bool = false) -> ImageURLError {
        ImageURLError(status: 400, name: "unknown_option", message: supportedByImgproxy
            ? "The option \"\(name)\" is not supported by this server."
            : "Unknown option \"\(name)\".")
    }

    /// An option's arguments are wrong: `option` is the option's name as written in the URL.
    public static func invalidArgument(_ option: String, _ detail: String) -> ImageURLError {
        ImageURLError(status: 400, name: "invalid_argument", message: "Option \"\(option)\": \(detail)")
    }

    /// A preset the server does not define.
    public static func unknownPreset(_ preset: String) -> ImageURLError {
        ImageURLError(status: 400, name: "unknown_preset", message: "Unknown preset \"\(preset)\".")
    }

    /// The signature does not match the path under any configured key.
    public static let invalidSignature = ImageURLError(status: 403, name: "invalid_signature",
        message: "The signature does not match the URL.")

    /// Signing is off, yet the signature segment looks like an option: the signature was forgotten.
    public static func missingSignature(_ segment: String) -> ImageURLError {
        ImageURLError(status: 403, name: "missing_signature", message:
            "The first segment \"\(segment)\" contains ':', so it is an option, not a signature: "
            + "URLs start with /SIGNATURE/ (any word, e.g. /insecure/, when signing is off).")
    }

    /// A security option (`max_src_resolution`, `max_src_file_size`) in a server that does not sign URLs.
    public static func forbiddenOption(_ name: String) -> ImageURLError {
        ImageURLError(status: 403, name: "forbidden_option",
                      message: "The option \"\(name)\" is only allowed in signed URLs, and this server does not sign URLs.")
    }

    /// The URL's `expires` time has passed.
    public static func expired(_ timestamp: Int64) -> ImageURLError {
        ImageURLError(status: 410, name: "expired", message: "The URL expired at \(timestamp) (unix time).")
    }
}
