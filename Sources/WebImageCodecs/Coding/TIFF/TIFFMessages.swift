import CTIFF

/// What libtiff said while one file was open, captured instead of printed.
///
/// libtiff prints its errors and warnings to stderr unless a handler takes them. Each file opened
/// by the coder installs this as its own handler (libtiff 4.5's per-open handlers, so decodes on
/// other threads never see each other's messages) and the last error becomes part of the thrown
/// ``WebImageError``. At most a few messages are kept: a hostile file can warn once per strip.
final class TIFFMessages {
    /// Errors in the order libtiff reported them (at most ``maxKept``).
    private(set) var errors: [String] = []
    /// Warnings in the order libtiff reported them (at most ``maxKept``).
    private(set) var warnings: [String] = []

    static let maxKept = 8

    /// The last error, or the last warning when there was no error; nil when libtiff said nothing.
    var summary: String? { errors.last ?? warnings.last }

    /// Forgets what was said so far.
    func clear() {
        errors.removeAll()
        warnings.removeAll()
    }

    fileprivate func record(_ text: String, isError: Bool) {
        if isError {
            if errors.count < Self.maxKept { errors.append(text) }
        } else if warnings.count < Self.maxKept {
            warnings.append(text)
        }
    }

    /// Sets `options`' error and warning handlers to record into `self`, which must outlive every
    /// file opened with them.
    func install(on options: OpaquePointer) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        TIFFOpenOptionsSetErrorHandlerExtR(options, { _, user, module, format, arguments in
            TIFFMessages.take(user, module, format, arguments, isError: true)
        }, me)
        TIFFOpenOptionsSetWarningHandlerExtR(options, { _, user, module, format, arguments in
            TIFFMessages.take(user, module, format, arguments, isError: false)
        }, me)
    }

    /// Formats one message and records it; returns 1, which tells libtiff the message is handled
    /// (so its global handlers, which print to stderr, are not called).
    private static func take(_ user: UnsafeMutableRawPointer?, _ module: UnsafePointer<CChar>?,
                             _ format: UnsafePointer<CChar>?, _ arguments: CVaListPointer?,
                             isError: Bool) -> Int32 {
        guard let user, let format, let arguments else { return 1 }
        var buffer = [CChar](repeating: 0, count: 512)
        ctiff_format(&buffer, buffer.count, format, arguments)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let from = module.map { String(cString: $0) } ?? ""
        let messages = Unmanaged<TIFFMessages>.fromOpaque(user).takeUnretainedValue()
        messages.record(from.isEmpty ? text : "\(from): \(text)", isError: isError)
        return 1
    }
}
