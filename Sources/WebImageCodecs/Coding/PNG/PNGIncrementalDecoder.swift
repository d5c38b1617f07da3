import CSPNG
import Foundation

/// Shows a non-interlaced PNG row by row while it downloads, and an APNG's frames as they arrive.
///
/// libspng cannot pause and resume, so each look re-decodes the bytes received so far and keeps
/// the rows that came out whole; to keep that cheap it only re-decodes once the data has grown by
/// an eighth since the last attempt. Interlaced PNGs give `nil` until finished. An APNG shows its
/// default image row by row (when it is the first frame), then, once two frames have fully
/// arrived, a partial animation of the frames received so far (decoded on demand; each update
/// walks the chunk headers, each rebuild decodes the poster).
final class PNGIncrementalDecoder: IncrementalImageDecoding {
    private let options: DecodeOptions
    private var data = Data()
    private var finished = false
    private var attemptedCount = 0
    private var partial: Image?
    private var completed: Result<Image, WebImageError>?
    /// Whether the data is an APNG, known once its image data has started (an `acTL` comes first).
    private var isAnimated: Bool?
    /// The last partial animation of an APNG, the byte count last read and the frame count last tried.
    private var arrivedAnimation: Image?
    private var arrivedByteCount = 0
    private var attemptedFrameCount: Int?

    init(options: DecodeOptions) { self.options = options }

    func update(_ data: Data, finished: Bool) {
        if !finished || data.count != self.data.count { completed = nil }
        if data.count < self.data.count { // a restarted download
            isAnimated = nil
            arrivedAnimation = nil
            arrivedByteCount = 0
            attemptedFrameCount = nil
            attemptedCount = 0
            partial = nil
        }
        self.data = data
        self.finished = finished
    }

    func currentImage() throws -> Image? {
        if finished { return try finalImage() }
        if let animation = arrivedFrames() { return animation }
        let grown = data.count - attemptedCount
        guard grown > 0, grown >= attemptedCount / 8 else { return partial }
        attemptedCount = data.count
        let closed = data.withUnsafeBytes { PNGChunks.closedPrefix($0.bindMemory(to: UInt8.self)) }
        if let image = closed.withUnsafeBufferPointer({ decodePartial($0) }) {
            partial = image
        }
        return partial
    }

    /// The APNG frames that have fully arrived, as a partial animation rebuilt as more arrive
    /// (``ArrivedFramesPacing``); nil for a still PNG and until two frames are in.
    private func arrivedFrames() -> Image? {
        guard !options.firstFrameOnly, arrivedByteCount != data.count else { return arrivedAnimation }
        arrivedByteCount = data.count
        if isAnimated == nil {
            isAnimated = data.withUnsafeBytes { raw -> Bool? in
                let bytes = raw.bindMemory(to: UInt8.self)
                return PNGChunks.imageDataStarted(bytes) ? PNGChunks.hasAnimationControl(bytes) : nil
            }
        }
        guard isAnimated == true, let apng = APNGDecoder.arrivedStructure(data), apng.frames.count > 1,
              ArrivedFramesPacing.shouldShow(arrived: apng.frames.count, shown: attemptedFrameCount) else {
            return arrivedAnimation
        }
        attemptedFrameCount = apng.frames.count
        if let image = try? APNGDecoder.decodeArrivedFrames(data, apng: apng, options: options) {
            arrivedAnimation = image
        }
        return arrivedAnimation
    }

    /// The complete decode, computed once per finished buffer.
    private func finalImage() throws -> Image {
        if let completed { return try completed.get() }
        let result: Result<Image, WebImageError>
        do {
            result = .success(try PNGCoder().decode(data, options: options))
        } catch let error as WebImageError {
            result = .failure(error)
        } catch {
            result = .failure(WebImageError.badData("The PNG could not be decoded: \(error)."))
        }
        completed = result
        return try result.get()
    }

    /// The rows decodable from `bytes` so far, undecoded rows transparent; nil when none are,
    /// when the image is interlaced, an APNG whose default image is not its first frame, or past
    /// the limits.
    private func decodePartial(_ bytes: UnsafeBufferPointer<UInt8>) -> Image? {
        let format = ImageFormat.detect(bytes)
        guard format == .png || (format == .apng && PNGChunks.defaultImageIsFirstFrame(bytes)),
              PNGChunks.imageDataStarted(bytes) else { return nil }
        guard let ctx = try? SPNGContext(decoding: bytes, limits: options.limits),
              let ihdr = try? ctx.header(), ihdr.interlace_method == 0 else { return nil }
        let size = PixelSize(width: Int(ihdr.width), height: Int(ihdr.height))
        guard (try? options.limits.check(size, format: .png)) != nil else { return nil }
        let flags = PNGDecoder.applyTransparency | Int32(SPNG_DECODE_PROGRESSIVE.rawValue)
        guard spng_decode_image(ctx.raw, nil, 0, PNGDecoder.rgba8, flags) == 0 else { return nil }

        let rowBytes = size.width * 4
        var pixels = [UInt8](repeating: 0, count: size.area * 4)
        var rows = 0
        pixels.withUnsafeMutableBufferPointer { out in
            var row = [UInt8](repeating: 0, count: rowBytes)
            while rows < size.height {
                let rc = row.withUnsafeMutableBytes { spng_decode_row(ctx.raw, $0.baseAddress, rowBytes) }
                guard rc == 0 || rc == Int32(SPNG_EOI.rawValue) else { break }
                for i in 0..<rowBytes { out[rows * rowBytes + i] = row[i] }
                rows += 1
                if rc != 0 { break }
            }
        }
        guard rows > 0 else { return nil }
        let color = PNGColorChunks.plan(bytes, options: options)
        if color.conversion != nil { pixels.withUnsafeMutableBufferPointer { color.apply($0) } }
        let bitmap = Bitmap(width: size.width, height: size.height, pixels: pixels)
        let shown = DecodedOutput.finish([bitmap], orientation: PNGChunks.exifOrientation(bytes), options: options)
        return Image(bitmap: shown[0], format: .png, scale: options.scaleFactor, decodeOptions: options,
                     isPartial: true, colorProfile: color.profile)
    }
}

extension PNGChunks {
    /// The complete chunks of a partly received PNG, plus, when the bytes end inside an IDAT
    /// chunk, that chunk closed off with the payload received so far and a fresh CRC — libspng
    /// only reads whole chunks, so this lets it decode every row the received data covers.
    static func closedPrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = Int(readUInt32(bytes, offset))
            guard length <= Int(Int32.max) else { break }
            if offset + 12 + length <= bytes.count {
                offset += 12 + length
                continue
            }
            guard readUInt32(bytes, offset + 4) == IDAT else { break }
            let payload = UnsafeBufferPointer(rebasing: bytes[offset + 8..<Swift.min(bytes.count, offset + 8 + length)])
            let type = UnsafeBufferPointer(rebasing: bytes[offset + 4..<offset + 8])
            let crc = CRC32.update(CRC32.update(0, type), payload)
            return Array(bytes[0..<offset]) + PNGWriter.bigEndian(UInt32(payload.count)) + Array(type)
                + Array(payload) + PNGWriter.bigEndian(crc)
        }
        return Array(bytes[0..<Swift.min(offset, bytes.count)])
    }

    /// True when an APNG's default image (its IDAT) is the animation's first frame: an `fcTL`
    /// comes before the first IDAT. Otherwise the default image is only for viewers without APNG.
    static func defaultImageIsFirstFrame(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for chunk in PNGChunks(bytes) {
            if chunk.type == fcTL { return true }
            if chunk.type == IDAT { return false }
        }
        return false
    }

    /// True once the bytes reach the start of the first IDAT chunk (its header has arrived).
    static func imageDataStarted(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = Int(readUInt32(bytes, offset))
            if readUInt32(bytes, offset + 4) == IDAT { return true }
            guard length <= Int(Int32.max) else { return false }
            offset += 12 + length
        }
        return false
    }
}
