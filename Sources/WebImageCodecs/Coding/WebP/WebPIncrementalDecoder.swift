import CWebP
import Foundation

/// Shows a WebP while its bytes arrive: a still one row by row with libwebp's incremental
/// decoder, an animated one frame by frame.
///
/// Each update feeds only the new bytes; ``currentImage()`` copies the rows decoded so far into a
/// partial image (the rest transparent). An animation shows its first frame once it has fully
/// arrived, then a partial animation of the frames received so far (decoded on demand, from a
/// file of the arrived frames: ``WebPArrivedFrames``). Orientation is only known at the end (the
/// EXIF chunk follows the pixels), so partial images are in stored orientation and the finished
/// image is the regular full decode.
final class WebPIncrementalDecoder: IncrementalImageDecoding {
    private let options: DecodeOptions
    private var data = Data()
    private var finished = false
    /// How many bytes of `data` libwebp has been given.
    private var appended = 0
    /// The libwebp decoder (`WebPIDecoder*`) and the configuration it points into.
    private var decoder: OpaquePointer?
    private var config: UnsafeMutablePointer<WebPDecoderConfig>?
    /// Set when no partial images can be shown (animated, too large, or bad data).
    private var givenUp = false
    private var finalResult: Result<Image, WebImageError>?
    /// True once the header says the file is animated.
    private var isAnimated = false
    /// The last partial image of an animation, and the frame count last tried.
    private var arrivedImage: Image?
    private var attemptedFrameCount: Int?

    init(options: DecodeOptions) {
        self.options = options
    }

    deinit { release() }

    func update(_ data: Data, finished: Bool) {
        if data.count < appended || data.count < self.data.count { // a different (restarted) buffer: start over
            release()
            givenUp = false
            arrivedImage = nil
            attemptedFrameCount = nil
        }
        self.data = data
        self.finished = finished
        finalResult = nil
        if finished {
            release()
            return
        }
        feed()
    }

    func currentImage() throws -> Image? {
        if finished { return try finishedImage() }
        if isAnimated { return arrivedFrames() }
        guard let decoder else { return nil }
        var lastY: Int32 = 0, width: Int32 = 0, height: Int32 = 0, stride: Int32 = 0
        guard let rows = WebPIDecGetRGB(decoder, &lastY, &width, &height, &stride),
              lastY > 0, width > 0, height > 0, stride >= width * 4 else { return nil }
        let decodedRows = Int(min(lastY, height)), rowBytes = Int(width) * 4
        let bitmap = Bitmap(width: Int(width), height: Int(height)) { out in
            for y in 0..<decodedRows {
                (out.baseAddress! + y * rowBytes).initialize(from: rows + y * Int(stride), count: rowBytes)
            }
            let filled = decodedRows * rowBytes
            (out.baseAddress! + filled).initialize(repeating: 0, count: out.count - filled)
        }
        return Image(bitmap: bitmap, format: .webp, scale: options.scaleFactor, decodeOptions: options,
                     isPartial: true)
    }

    /// The frames of an animation that have fully arrived: the first as a still, then a partial
    /// animation, rebuilt as more frames arrive (``ArrivedFramesPacing``).
    private func arrivedFrames() -> Image? {
        let file = data.withUnsafeBytes { raw -> [UInt8]? in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let scan = WebPArrivedFrames.scan(bytes),
                  ArrivedFramesPacing.shouldShow(arrived: scan.frameCount, shown: attemptedFrameCount) else { return nil }
            attemptedFrameCount = scan.frameCount
            return WebPArrivedFrames.file(scan, of: bytes)
        }
        guard let file else { return arrivedImage }
        let fileData = Data(file)
        let image = fileData.withUnsafeBytes { raw -> Image? in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard let features = try? WebPBitstream.features(of: bytes), features.has_animation != 0 else { return nil }
            return try? WebPAnimationDecoder.decode(bytes, data: fileData, features: features, options: options,
                                                    isPartial: true)
        }
        if let image { arrivedImage = image }
        return arrivedImage
    }

    /// The regular decode of the complete data, computed once.
    private func finishedImage() throws -> Image {
        if finalResult == nil {
            do {
                finalResult = .success(try WebPCoder().decode(data, options: options))
            } catch let error as WebImageError {
                finalResult = .failure(error)
            } catch {
                finalResult = .failure(WebImageError.badData("The WebP data could not be decoded: \(error)."))
            }
        }
        return try finalResult!.get()
    }

    /// Gives libwebp the bytes it has not seen yet, creating the decoder once the header is in.
    private func feed() {
        guard !givenUp else { return }
        if decoder == nil, !start() { return }
        let status = data.withUnsafeBytes { raw -> VP8StatusCode in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard appended < bytes.count, let base = bytes.baseAddress else { return VP8_STATUS_SUSPENDED }
            return WebPIAppend(decoder, base + appended, bytes.count - appended)
        }
        appended = data.count
        if status != VP8_STATUS_OK, status != VP8_STATUS_SUSPENDED {
            givenUp = true
            release()
        }
    }

    /// Reads the header and sets up a decoder at the target size; false while the header is
    /// incomplete or when partial images cannot be shown.
    private func start() -> Bool {
        var features = WebPBitstreamFeatures()
        let status = data.withUnsafeBytes { raw in
            WebPGetFeatures(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &features)
        }
        if status == VP8_STATUS_NOT_ENOUGH_DATA { return false }
        guard status == VP8_STATUS_OK, features.has_animation == 0 else {
            // An animation is shown from its arrived frames, not by libwebp's incremental decoder.
            isAnimated = status == VP8_STATUS_OK
            givenUp = true
            return false
        }
        let size = WebPBitstream.size(of: features)
        let target = options.targetSize(for: size)
        guard (try? WebPDecoder.checkLimits(features, target: target, options: options)) != nil else {
            givenUp = true
            return false
        }
        let config = UnsafeMutablePointer<WebPDecoderConfig>.allocate(capacity: 1)
        config.initialize(to: WebPDecoderConfig())
        self.config = config
        guard WebPInitDecoderConfig(config) != 0 else {
            givenUp = true
            release()
            return false
        }
        config.pointee.output.colorspace = MODE_RGBA
        if target != size {
            config.pointee.options.use_scaling = 1
            config.pointee.options.scaled_width = Int32(target.width)
            config.pointee.options.scaled_height = Int32(target.height)
        }
        decoder = WebPIDecode(nil, 0, config)
        appended = 0
        if decoder == nil {
            givenUp = true
            release()
            return false
        }
        return true
    }

    private func release() {
        if let decoder { WebPIDelete(decoder) }
        decoder = nil
        if let config {
            WebPFreeDecBuffer(&config.pointee.output)
            config.deinitialize(count: 1)
            config.deallocate()
        }
        config = nil
        appended = 0
    }
}
