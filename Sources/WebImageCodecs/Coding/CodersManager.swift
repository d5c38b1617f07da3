import Foundation

/// Routes decoding and encoding to a list of coders, SDWebImage style.
///
/// The **last** coder added has the highest priority. Decoding goes to the first coder (from the
/// highest priority down) whose `canDecode` is true, with no fallback if that coder then fails;
/// encoding goes to the first whose `canEncode` is true.
public final class CodersManager: ProgressiveImageCoding {
    /// The shared manager with the built-in coders: JPEG, PNG/APNG, GIF, WebP, SVG (decode only),
    /// HEIC/HEIF (HEIC encoding where libheif has an HEVC encoder), AVIF, JPEG XL, TIFF, BMP and
    /// ICO/CUR (ICO written as PNG-in-ICO).
    public static let shared = CodersManager()

    private let state: PriorityList<any ImageCoding>

    /// A manager with `coders` (lowest priority first); the default is the built-in set.
    public init(coders: [any ImageCoding] = CodersManager.builtInCoders) {
        state = PriorityList(coders)
    }

    /// The built-in coders, lowest priority first.
    public static var builtInCoders: [any ImageCoding] {
        [JPEGCoder(), PNGCoder(), GIFCoder(), WebPCoder(), SVGCoder(), HEIFCoder(), AVIFCoder(), JXLCoder(), TIFFCoder(),
         BMPCoder(), ICOCoder()]
    }

    /// The coders, lowest priority first.
    public var coders: [any ImageCoding] {
        get { state.elements }
        set { state.elements = newValue }
    }

    /// Adds `coder` with the highest priority.
    public func addCoder(_ coder: any ImageCoding) {
        state.add(coder)
    }

    /// Removes every coder of the same type as `coder`.
    public func removeCoder(_ coder: any ImageCoding) {
        let type = ObjectIdentifier(Swift.type(of: coder))
        state.removeAll { ObjectIdentifier(Swift.type(of: $0)) == type }
    }

    /// The coder that would decode `data`, if any.
    public func decoder(for data: Data) -> (any ImageCoding)? {
        state.highest { $0.canDecode(data) }
    }

    /// True when some coder claims `data`.
    public func canDecode(_ data: Data) -> Bool { decoder(for: data) != nil }

    /// The header of `data` as the coder that would decode it reads it.
    public func imageInfo(for data: Data) -> ImageInfo? { decoder(for: data)?.imageInfo(for: data) }

    /// Decodes with the highest-priority coder that claims `data`; empty, unknown or unsupported data throws.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try checkedDecoder(for: data).decode(data, options: options)
    }

    /// The coder that would decode `data`; throws as ``decode(_:options:)`` does for empty,
    /// unrecognised or unsupported data, without decoding anything.
    public func checkedDecoder(for data: Data) throws -> any ImageCoding {
        guard !data.isEmpty else { throw WebImageError.badData("The image data is empty.") }
        guard let coder = decoder(for: data) else {
            let format = ImageFormat.detect(data)
            if format == .undefined {
                throw WebImageError.badData("The data (\(data.count) bytes) is not in any image format this library recognises.")
            }
            throw WebImageError(.unsupportedFormat, "No coder can decode \(format.rawValue) images.")
        }
        return coder
    }

    /// True when some coder can write `format`.
    public func canEncode(to format: ImageFormat) -> Bool {
        coders.contains { $0.canEncode(to: format) }
    }

    /// Encodes with the highest-priority coder for `format` (``defaultEncodingFormat(for:)`` when `.undefined`).
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        let target = format == .undefined ? defaultEncodingFormat(for: image) : format
        guard let coder = state.highest(where: { $0.canEncode(to: target) }) else {
            throw WebImageError(.unsupportedFormat, "No coder can encode \(target.rawValue) images.")
        }
        return try coder.encode(image, as: target, options: options)
    }

    /// True when the coder chosen for `data` can decode it progressively.
    public func canDecodeIncrementally(_ data: Data) -> Bool {
        progressiveCoder(for: data) != nil
    }

    /// A decoder that picks the progressive coder once enough bytes arrived to recognise the format.
    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoding {
        RoutingIncrementalDecoder(manager: self, options: options)
    }

    /// The progressive coder that would decode `data`, if the chosen coder is progressive.
    func progressiveCoder(for data: Data) -> (any ProgressiveImageCoding)? {
        guard let coder = decoder(for: data) as? any ProgressiveImageCoding,
              coder.canDecodeIncrementally(data) else { return nil }
        return coder
    }
}

/// Picks the progressive coder once enough bytes have arrived to recognise the format.
private final class RoutingIncrementalDecoder: IncrementalImageDecoding {
    private let manager: CodersManager
    private let options: DecodeOptions
    private var inner: (any IncrementalImageDecoding)?
    private var finishedData: Data?

    init(manager: CodersManager, options: DecodeOptions) {
        self.manager = manager
        self.options = options
    }

    func update(_ data: Data, finished: Bool) {
        if inner == nil, data.count >= 16 || finished {
            inner = manager.progressiveCoder(for: data)?.makeIncrementalDecoder(options: options)
        }
        inner?.update(data, finished: finished)
        finishedData = finished ? data : nil
    }

    func currentImage() throws -> Image? {
        if let inner { return try inner.currentImage() }
        if let finishedData { return try manager.decode(finishedData, options: options) }
        return nil
    }
}
