import CAVIF

/// Turns libavif results into ``WebImageError``s with what libavif's diagnostics say.
enum AVIFFailure {
    /// Throws unless `result` is `AVIF_RESULT_OK`; `action` says what was being done.
    static func check(_ result: avifResult, _ action: String,
                      diagnostics: UnsafePointer<avifDiagnostics>? = nil) throws {
        guard result != AVIF_RESULT_OK else { return }
        throw error(for: result, while: action, detail: diagnostics.map(detail(of:)) ?? "")
    }

    /// The error for a failed libavif call.
    static func error(for result: avifResult, while action: String, detail: String) -> WebImageError {
        let name = String(cString: avifResultToString(result))
        let said = detail.isEmpty ? name : "\(name): \(detail)"
        switch result {
        case AVIF_RESULT_TRUNCATED_DATA:
            return WebImageError.badData("The AVIF data ended early while \(action); the file is truncated (libavif: \(said)).")
        case AVIF_RESULT_OUT_OF_MEMORY:
            return WebImageError(.imageTooLarge, "libavif ran out of memory while \(action).")
        case AVIF_RESULT_NO_CODEC_AVAILABLE:
            return WebImageError(.unsupportedFormat, "libavif has no AV1 codec for \(action) (libavif: \(said)).")
        case AVIF_RESULT_INVALID_FTYP:
            return WebImageError.badData("The data is not AVIF: its ftyp box names neither the avif nor the avis brand (libavif: \(said)).")
        default:
            // A container that breaks the HEIF standard in a way libavif 0.11 refuses (duplicate
            // ipma boxes, as some early encoders wrote): outside what is supported, not damage.
            if detail.contains("ISO 23008-12") {
                return WebImageError(.unsupportedFormat,
                    "The AVIF file breaks ISO 23008-12 (HEIF) in a way libavif 0.11 refuses, so it is not supported (libavif while \(action): \(said)).")
            }
            // libavif refuses a declared size over its own limits at parse time.
            if detail.contains("too large") {
                return WebImageError(.imageTooLarge,
                    "The AVIF image is over the decode limit (libavif: \(said)); raise DecodeLimits.maxPixels to decode it.")
            }
            return WebImageError.badData("The AVIF data is invalid or corrupt (libavif while \(action): \(said)).")
        }
    }

    /// The text of libavif's last diagnostic, empty when there is none.
    static func detail(of diagnostics: UnsafePointer<avifDiagnostics>) -> String {
        withUnsafeBytes(of: diagnostics.pointee.error) { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let end = bytes.firstIndex(of: 0) ?? bytes.count
            return String(decoding: bytes[..<end], as: UTF8.self)
        }
    }
}
