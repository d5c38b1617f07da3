import Foundation
import WebImage

/// What a result carries besides its pixels, by `strip_color_profile` and `keep_copyright` and
/// the server's defaults for them: the source's ICC profile (its pixels then decoded unconverted)
/// and the source's EXIF Copyright and Artist, in the formats whose containers this server writes
/// them into (``EmbeddedMetadata/formats``). A result in another format is converted to sRGB and
/// carries neither, as imgproxy converts for formats without a profile.
struct ResultMetadata: Sendable {
    /// `scp:0` (or the server's default): the source's colours kept, with its profile.
    let wantsColorProfile: Bool
    /// The copyright fields are written: `keep_copyright` (or the server's default), or metadata
    /// not stripped (`sm:0`), of which this server keeps these fields.
    let keepsCopyright: Bool
    /// The output format the URL or the negotiation chose; nil keeps the source's where it can.
    let asked: ImageFormat?

    init(options: ProcessingOptions, configuration: ServerConfiguration, asked: ImageFormat?) {
        wantsColorProfile = !(options.stripColorProfile ?? configuration.stripColorProfile) && !options.bestFormat
        keepsCopyright = (options.keepCopyright ?? configuration.keepCopyright) || !options.stripMetadata
        self.asked = asked
    }

    /// Whether a source of `format` is decoded with its colours kept: only when its result will
    /// be in a format that embeds the profile (the URL's, else the source's own).
    func keepsColorProfile(forSource format: ImageFormat) -> Bool {
        guard wantsColorProfile else { return false }
        let output = asked ?? ([.jpeg, .png, .webp].contains(format) ? format : nil)
        return output.map { [.jpeg, .png, .webp].contains($0) } ?? false
    }

    /// The metadata to write into a result of `image` encoded as `format` from the source `data`,
    /// whose colours the decode kept when `profileKept`.
    func embedded(for image: Image, as format: ImageFormat, source data: Data, profileKept: Bool) -> EmbeddedMetadata {
        guard EmbeddedMetadata.formats.contains(format) else { return EmbeddedMetadata() }
        var metadata = copyright(source: data)
        if profileKept { metadata.iccProfile = image.colorProfile?.iccData }
        return metadata
    }

    /// The copyright fields alone (when kept): all a `format:best` result carries, since its
    /// format is chosen after it is encoded and its colours are converted to sRGB (embedded only
    /// in formats that carry EXIF).
    func copyright(source data: Data) -> EmbeddedMetadata {
        keepsCopyright ? EmbeddedMetadata(exif: CopyrightEXIF(source: data).tiff) : EmbeddedMetadata()
    }
}
