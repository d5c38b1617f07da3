import CGIF
import Foundation
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Hand-controlled GIFs written with giflib's EGif API, so each decoder case is exact.
enum GIFFixtures {
    /// Palette used by the fixtures: 0 white, 1 red, 2 green, 3 blue.
    static let palette: [RGBA] = [.white, TestBitmaps.red, TestBitmaps.green, TestBitmaps.blue]

    struct Frame {
        var x = 0, y = 0, width: Int, height: Int
        /// One palette index per pixel, rows top to bottom (in display order even when interlaced).
        var indices: [UInt8]
        var disposal = Int32(DISPOSAL_UNSPECIFIED)
        var delay: Int32 = 10
        var transparentIndex = Int32(NO_TRANSPARENT_COLOR)
        var interlaced = false
        var hasControl = true

        /// A frame filled with one palette index.
        static func solid(_ index: UInt8, x: Int = 0, y: Int = 0, width: Int, height: Int) -> Frame {
            Frame(x: x, y: y, width: width, height: height, indices: Array(repeating: index, count: width * height))
        }
    }

    /// A GIF89a with a global 4-colour table, an optional NETSCAPE2.0 loop count and `frames`.
    static func make(width: Int, height: Int, frames: [Frame], loopCount: Int? = nil) -> Data {
        let sink = UnsafeMutablePointer<[UInt8]>.allocate(capacity: 1)
        sink.initialize(to: [])
        defer { sink.deinitialize(count: 1); sink.deallocate() }
        var error: Int32 = 0
        let file = EGifOpen(sink, { file, bytes, count in
            let sink = file!.pointee.UserData.assumingMemoryBound(to: [UInt8].self)
            sink.pointee.append(contentsOf: UnsafeBufferPointer(start: bytes, count: Int(count)))
            return count
        }, &error)!
        EGifSetGifVersion(file, true)
        let colors = palette.map { GifColorType(Red: $0.r, Green: $0.g, Blue: $0.b) }
        let map = GifMakeMapObject(Int32(colors.count), colors)!
        defer { GifFreeMapObject(map) }
        precondition(EGifPutScreenDesc(file, Int32(width), Int32(height), 8, 0, map) == GIF_OK)
        if let loopCount {
            let name = Array("NETSCAPE2.0".utf8)
            let loop: [UInt8] = [1, UInt8(loopCount & 0xFF), UInt8(loopCount >> 8)]
            EGifPutExtensionLeader(file, APPLICATION_EXT_FUNC_CODE)
            EGifPutExtensionBlock(file, Int32(name.count), name)
            EGifPutExtensionBlock(file, Int32(loop.count), loop)
            EGifPutExtensionTrailer(file)
        }
        for frame in frames {
            if frame.hasControl {
                var gcb = GraphicsControlBlock(DisposalMode: frame.disposal, UserInputFlag: false,
                                               DelayTime: frame.delay, TransparentColor: frame.transparentIndex)
                var bytes = [GifByteType](repeating: 0, count: 4)
                let n = EGifGCBToExtension(&gcb, &bytes)
                precondition(EGifPutExtension(file, GRAPHICS_EXT_FUNC_CODE, Int32(n), bytes) == GIF_OK)
            }
            precondition(EGifPutImageDesc(file, Int32(frame.x), Int32(frame.y), Int32(frame.width),
                                          Int32(frame.height), frame.interlaced, nil) == GIF_OK)
            for row in GIFInterlace.rowOrder(height: frame.height, interlaced: frame.interlaced) {
                var line = Array(frame.indices[row * frame.width..<(row + 1) * frame.width])
                precondition(EGifPutLine(file, &line, Int32(frame.width)) == GIF_OK)
            }
        }
        precondition(EGifCloseFile(file, &error) == GIF_OK)
        return Data(sink.pointee)
    }

    /// Hand-written bytes: a `width` × `height` screen with a 2-colour table, then one image
    /// descriptor claiming `frameWidth` × `frameHeight` followed by a few LZW bytes.
    static func oversizedFrame(width: UInt16, height: UInt16, frameWidth: UInt16, frameHeight: UInt16) -> Data {
        func le(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        var bytes = Array("GIF89a".utf8) + le(width) + le(height) + [0x80, 0, 0]
        bytes += [0, 0, 0, 255, 255, 255]
        bytes += [0x2C] + le(0) + le(0) + le(frameWidth) + le(frameHeight) + [0]
        bytes += [2, 2, 0x4C, 0x01, 0, 0x3B]
        return Data(bytes)
    }
}
