import ArgumentParser
import Foundation
import WebImageServer

extension ServeCommand {
    /// The watermark `--watermark-path`, `--watermark-url` or `--watermark-data` names (or their
    /// `WEBIMAGE_WATERMARK_*` variables), if any; more than one, a URL that is not http(s) or data
    /// that is not base64 are refused.
    func watermarkSource() throws -> WatermarkSource? {
        let path = watermarkPath ?? Env.string("WATERMARK_PATH")
        let url = watermarkUrl ?? Env.string("WATERMARK_URL")
        let data = watermarkData ?? Env.string("WATERMARK_DATA")
        let given = [path, url, data].compactMap { $0 }
        guard given.count <= 1 else {
            throw ValidationError("Give one of --watermark-path, --watermark-url and --watermark-data, not \(given.count).")
        }
        if let path { return .file(URL(fileURLWithPath: path)) }
        if let url {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? "") else {
                throw ValidationError("--watermark-url takes an http or https URL, got '\(url)'.")
            }
            return .url(parsed)
        }
        if let data {
            guard let bytes = Data(base64Encoded: data) else {
                throw ValidationError("--watermark-data is not base64.")
            }
            return .data(bytes)
        }
        return nil
    }

    /// Checks `--watermark-opacity` and the watermark's source.
    func validateWatermarkOptions() throws {
        guard watermarkOpacity.isFinite, watermarkOpacity > 0, watermarkOpacity <= 1 else {
            throw ValidationError("--watermark-opacity takes a number above 0 and at most 1, got \(watermarkOpacity).")
        }
        _ = try watermarkSource()
    }

    func applyWatermarkOptions(to configuration: inout ServerConfiguration) throws {
        configuration.watermark = try watermarkSource()
        configuration.watermarkOpacity = watermarkOpacity
    }
}
