import CWebP
import Foundation

/// Reads the container-level facts of a WebP file (EXIF orientation, ICC profile, frame and loop
/// counts) through libwebp's demuxer, which parses chunk headers only and never allocates pixels.
struct WebPContainer {
    /// The number of frames (1 for a still image).
    var frameCount: Int
    /// How many times an animation plays; 0 means forever.
    var loopCount: Int
    /// The EXIF orientation, `.up` when there is no EXIF chunk or no orientation tag.
    var orientation: EXIFOrientation
    /// The `ICCP` chunk's profile; nil without one.
    var iccProfile: Data?
    /// Each frame's duration in milliseconds, as stored (animations only; empty for a still).
    var frameMilliseconds: [Int] = []

    /// Parses the chunks of a complete WebP file; throws ``WebImageError/Code/badImageData`` when
    /// the container is truncated or malformed.
    init(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        var data = WebPData(bytes: bytes.baseAddress, size: bytes.count)
        guard let demuxer = WebPDemux(&data) else {
            throw WebImageError.badData("The WebP container (\(bytes.count) bytes) is truncated or malformed.")
        }
        defer { WebPDemuxDelete(demuxer) }
        frameCount = Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT))
        loopCount = Int(WebPDemuxGetI(demuxer, WEBP_FF_LOOP_COUNT))
        orientation = Self.orientation(in: demuxer)
        iccProfile = Self.iccProfile(in: demuxer)
        if WebPDemuxGetI(demuxer, WEBP_FF_FORMAT_FLAGS) & ANIMATION_FLAG.rawValue != 0 {
            frameMilliseconds = Self.durations(in: demuxer, count: frameCount)
        }
    }

    /// The stored duration of every frame, read from the frame headers.
    private static func durations(in demuxer: OpaquePointer, count: Int) -> [Int] {
        var iterator = WebPIterator()
        guard count > 0, WebPDemuxGetFrame(demuxer, 1, &iterator) != 0 else { return [] }
        defer { WebPDemuxReleaseIterator(&iterator) }
        var durations = [Int(iterator.duration)]
        while durations.count < count, WebPDemuxNextFrame(&iterator) != 0 {
            durations.append(Int(iterator.duration))
        }
        return durations
    }

    /// The bytes of the first ICCP chunk.
    private static func iccProfile(in demuxer: OpaquePointer) -> Data? {
        var iterator = WebPChunkIterator()
        guard WebPDemuxGetChunk(demuxer, "ICCP", 1, &iterator) != 0 else { return nil }
        defer { WebPDemuxReleaseChunkIterator(&iterator) }
        guard let base = iterator.chunk.bytes, iterator.chunk.size > 0 else { return nil }
        return Data(bytes: base, count: iterator.chunk.size)
    }

    /// The orientation tag of the first EXIF chunk (with or without an `Exif\0\0` prefix).
    private static func orientation(in demuxer: OpaquePointer) -> EXIFOrientation {
        var iterator = WebPChunkIterator()
        guard WebPDemuxGetChunk(demuxer, "EXIF", 1, &iterator) != 0 else { return .up }
        defer { WebPDemuxReleaseChunkIterator(&iterator) }
        let chunk = iterator.chunk
        guard let base = chunk.bytes, chunk.size > 0 else { return .up }
        return EXIFOrientation.parse(exif: UnsafeBufferPointer(start: base, count: chunk.size)) ?? .up
    }
}
