import CTurboJPEG
import Foundation
import WebImageCodecs

/// Colour profiles: the input is an ICC profile (after 2 bytes that steer the container),
/// embedded in a small RGB, gray or CMYK JPEG as APP2 `ICC_PROFILE` chunks (sometimes one
/// dropped, repeated or miscounted, so the chunk reassembly is driven too) and in a PNG `iCCP`
/// chunk, then decoded with conversion on and off. Whatever lcms2 makes of the bytes, decoding
/// must not crash or fail differently from the untagged file, and the image keeps its size.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICC(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard count >= 2, let bytes else { return 0 }
    let steer = (bytes[0], bytes[1])
    let icc = Data(bytes: bytes + 2, count: count - 2)
    _ = ColorProfile(iccData: icc)

    let base = Data(ICCFuzzBases.jpegs[Int(steer.0 % 3)])
    let chunkSize = 1 + Int(steer.1 & 0x3F) * 64
    let jpeg = ICCFuzzBases.embed(icc, in: base, chunkSize: chunkSize, damage: steer.1 >> 6)
    let png = ICCFuzzBases.png(icc: icc)
    for options in [DecodeOptions(limits: fuzzLimits), DecodeOptions(limits: fuzzLimits, convertsToSRGB: false)] {
        check(JPEGCoder(), jpeg, options: options, expectedSize: PixelSize(width: 8, height: 8))
        check(PNGCoder(), png, options: options, expectedSize: PixelSize(width: 3, height: 2))
    }
    return 0
}

private func check(_ coder: some ImageCoding, _ data: Data, options: DecodeOptions, expectedSize: PixelSize) {
    do {
        let image = try coder.decode(data, options: options)
        checkImage(image, options: options, formats: [.jpeg, .png])
        require(image.pixelSize == expectedSize, "a tagged \(expectedSize) image decoded to \(image.pixelSize)")
    } catch {
        // The PNG's iCCP chunk is read by libspng, which may reject a malformed one outright.
        checkDecodeError(error)
        require(coder is PNGCoder, "a JPEG failed because of its profile: \(error)")
    }
}

/// The untagged files the profile is put into, made once.
enum ICCFuzzBases {
    /// Arrays, not `Data`, so that LeakSanitizer can follow them from this global.
    static let jpegs: [[UInt8]] = {
        var rgb: [UInt8] = [], gray: [UInt8] = [], cmyk: [UInt8] = []
        for i in 0..<64 {
            let v = UInt8(i * 4)
            rgb += [v, 255 - v, 90, 255]
            gray += [v, v, v, 255]
            cmyk += [v, 40, 255 - v / 2, 200]
        }
        return [compress(rgb, TJPF_RGBA, TJSAMP_420), compress(gray, TJPF_RGBA, TJSAMP_GRAY),
                compress(cmyk, TJPF_CMYK, TJSAMP_444)]
    }()

    private static func compress(_ pixels: [UInt8], _ format: TJPF, _ subsampling: TJSAMP) -> [UInt8] {
        guard let handle = tjInitCompress() else { fatalError("tjInitCompress") }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var length: UInt = 0
        let rc = pixels.withUnsafeBufferPointer {
            tjCompress2(handle, $0.baseAddress, 8, 32, 8, Int32(format.rawValue), &output, &length,
                        Int32(subsampling.rawValue), 90, 0)
        }
        guard rc == 0, let output else { fatalError("tjCompress2") }
        defer { tjFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }

    /// `jpeg` with `icc` in APP2 chunks of `chunkSize` bytes; `damage` 1 drops the last chunk,
    /// 2 repeats the first, 3 declares one chunk more than there are.
    static func embed(_ icc: Data, in jpeg: Data, chunkSize: Int, damage: UInt8) -> Data {
        let profile = [UInt8](icc)
        var chunks = stride(from: 0, to: max(profile.count, 1), by: chunkSize).map {
            Array(profile[min($0, profile.count)..<min($0 + chunkSize, profile.count)])
        }
        chunks = Array(chunks.prefix(255))
        var numbers = Array(1...chunks.count)
        var declared = chunks.count
        switch damage {
        case 1 where numbers.count > 1: numbers.removeLast()
        case 2: numbers.insert(1, at: 0)
        case 3: declared += 1
        default: break
        }
        var out = Data(jpeg.prefix(2))
        for number in numbers {
            let payload = Array("ICC_PROFILE\0".utf8) + [UInt8(number), UInt8(truncatingIfNeeded: declared)]
                + chunks[number - 1]
            let length = payload.count + 2
            out.append(contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload)
        }
        out.append(jpeg.dropFirst(2))
        return out
    }

    /// A 3×2 RGB PNG with `icc` (up to 64 KiB of it) in an iCCP chunk, zlib "stored".
    static func png(icc: Data) -> Data {
        let raw = [UInt8](icc.prefix(65_535))
        var zlib: [UInt8] = [0x78, 0x01, 1, UInt8(raw.count & 0xFF), UInt8(raw.count >> 8),
                             UInt8(~raw.count & 0xFF), UInt8((~raw.count >> 8) & 0xFF)] + raw
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        zlib += bigEndian(b << 16 | a)
        let scanlines: [UInt8] = [0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 30, 60, 90, 120, 150, 180, 210, 240, 255]
        var idat: [UInt8] = [0x78, 0x01, 1, UInt8(scanlines.count), 0, ~UInt8(scanlines.count), 0xFF] + scanlines
        var a2: UInt32 = 1, b2: UInt32 = 0
        for byte in scanlines { a2 = (a2 + UInt32(byte)) % 65521; b2 = (b2 + a2) % 65521 }
        idat += bigEndian(b2 << 16 | a2)
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        out += chunk("IHDR", bigEndian(3) + bigEndian(2) + [8, 2, 0, 0, 0])
        out += chunk("iCCP", Array("fuzz\0".utf8) + [0] + zlib)
        out += chunk("IDAT", idat)
        out += chunk("IEND", [])
        return Data(out)
    }

    private static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + payload
        return bigEndian(UInt32(payload.count)) + body + bigEndian(crc32(body))
    }

    private static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
