/// Turns libtiff failures into ``WebImageError``s carrying what libtiff said.
enum TIFFFailure {
    /// The error for a failed libtiff call while `action`, from the messages libtiff left.
    static func error(_ messages: TIFFMessages, while action: String) -> WebImageError {
        let said = messages.summary ?? "no message"
        let lower = said.lowercased()
        if lower.contains("memory allocation") || lower.contains("out of memory")
            || lower.contains("maximum single memory") || lower.contains("requested memory size") {
            return WebImageError(.imageTooLarge, "libtiff refused to allocate what the TIFF asks for while \(action) (libtiff: \(said)).")
        }
        if lower.contains("not a tiff") || lower.contains("cannot read tiff header") {
            return WebImageError.badData("The data is not a TIFF file (libtiff: \(said)).")
        }
        if lower.contains("sorry") || lower.contains("not supported") || lower.contains("not configured") {
            return WebImageError(.unsupportedFormat, "libtiff cannot decode this TIFF while \(action) (libtiff: \(said)).")
        }
        if lower.contains("read error") || lower.contains("unexpected end") || lower.contains("premature")
            || lower.contains("past end") || lower.contains("short") {
            return WebImageError.badData("The TIFF data ended early or is damaged while \(action); the file is truncated or corrupt (libtiff: \(said)).")
        }
        return WebImageError.badData("The TIFF data is invalid or corrupt (libtiff while \(action): \(said)).")
    }
}
