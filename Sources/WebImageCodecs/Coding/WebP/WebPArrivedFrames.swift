import Foundation

/// The frames of a downloading animated WebP that have fully arrived, as a complete file:
/// libwebp's animation decoder needs a whole container, so the received `ANMF` chunks are put
/// behind the header chunks (`VP8X`, `ICCP`, `ANIM`) under a RIFF size that fits them.
enum WebPArrivedFrames {
    /// The chunks a file of the arrived frames is made of.
    struct Arrived {
        /// The header chunks and the complete `ANMF` chunks, in file order.
        var chunks: [Range<Int>]
        var frameCount: Int
    }

    /// The chunks of `bytes` that have fully arrived, read from the chunk headers; nil while the
    /// `VP8X` chunk is incomplete or for bytes that are not an extended (VP8X) WebP.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Arrived? {
        guard bytes.count >= 12, fourCC(bytes, 0) == "RIFF", fourCC(bytes, 8) == "WEBP" else { return nil }
        var kept: [Range<Int>] = []
        var frames = 0, offset = 12, sawExtendedHeader = false
        while offset + 8 <= bytes.count {
            let type = fourCC(bytes, offset)
            let size = Int(readUInt32LE(bytes, offset + 4))
            let end = offset + 8 + size + (size & 1)
            // The last chunk may end without its padding byte.
            guard offset + 8 + size <= bytes.count else { break }
            switch type {
            case "VP8X": sawExtendedHeader = true; kept.append(offset..<offset + 8 + size)
            case "ICCP", "ANIM": kept.append(offset..<offset + 8 + size)
            case "ANMF": frames += 1; kept.append(offset..<offset + 8 + size)
            default: break
            }
            offset = end
        }
        guard sawExtendedHeader, let first = kept.first, fourCC(bytes, first.lowerBound) == "VP8X" else { return nil }
        return Arrived(chunks: kept, frameCount: frames)
    }

    /// A complete WebP file of `arrived`'s chunks of `bytes`.
    static func file(_ arrived: Arrived, of bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var file: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)
        file.reserveCapacity(12 + arrived.chunks.reduce(0) { $0 + $1.count + 1 })
        for range in arrived.chunks {
            file += bytes[range]
            if range.count & 1 == 1 { file.append(0) }
        }
        // The first chunk is VP8X (``scan(_:)`` makes sure). EXIF and XMP come after the frames:
        // its flags must not promise them.
        if file.count > 20 { file[20] &= ~0x0C }
        let riffSize = UInt32(file.count - 8)
        for i in 0..<4 { file[4 + i] = UInt8(truncatingIfNeeded: riffSize >> (8 * UInt32(i))) }
        return file
    }

    private static func fourCC(_ b: UnsafeBufferPointer<UInt8>, _ offset: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: b[offset..<offset + 4]), as: UTF8.self)
    }

    private static func readUInt32LE(_ b: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt32 {
        UInt32(b[offset]) | UInt32(b[offset + 1]) << 8 | UInt32(b[offset + 2]) << 16 | UInt32(b[offset + 3]) << 24
    }
}
