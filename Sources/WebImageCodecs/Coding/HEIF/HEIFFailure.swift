import CHEIF

/// Turns libheif errors into ``WebImageError``s, and initialises libheif once per process.
enum HEIFFailure {
    /// Throws unless `error` is `heif_error_Ok`; `action` says what was being done.
    static func check(_ error: heif_error, _ action: String) throws {
        guard error.code != heif_error_Ok else { return }
        throw self.error(for: error, while: action)
    }

    /// The ``WebImageError`` for a failed libheif call.
    static func error(for error: heif_error, while action: String) -> WebImageError {
        let said = error.message.map { String(cString: $0) } ?? "no message"
        let primaryMissing = [heif_suberror_No_pitm_box, heif_suberror_No_or_invalid_primary_item]
        if primaryMissing.contains(error.subcode) || (error.subcode == heif_suberror_Nonexisting_item_referenced && said.contains("pitm")) {
            return WebImageError.badData("The HEIF file has no primary image: its primary item is missing or invalid (libheif: \(said)).")
        }
        switch (error.code, error.subcode) {
        case (_, heif_suberror_Security_limit_exceeded), (heif_error_Memory_allocation_error, _):
            return WebImageError(.imageTooLarge, "The HEIF image is too large for libheif while \(action) (libheif: \(said)).")
        case (_, heif_suberror_End_of_data):
            return WebImageError.badData("The HEIF data ended early while \(action); the file is truncated (libheif: \(said)).")
        case (heif_error_Unsupported_filetype, _), (heif_error_Unsupported_feature, _),
             (_, heif_suberror_Unsupported_codec), (_, heif_suberror_Unsupported_image_type):
            return WebImageError(.unsupportedFormat, "libheif cannot decode this HEIF file while \(action) (libheif: \(said)).")
        default:
            return WebImageError.badData("The HEIF data is invalid or corrupt (libheif while \(action): \(said)).")
        }
    }

    /// Calls `heif_init` once, before the first use of libheif (it registers the decoder plugins).
    static func initialiseLibrary() {
        _ = initialised
    }

    private static let initialised: Bool = {
        _ = heif_init(nil)
        return true
    }()
}
