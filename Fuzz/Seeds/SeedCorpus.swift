import CSPNG
import CTurboJPEG
import Foundation
import WebImageCodecs

/// Writes the seed corpora into `<folder>/<target>/` (default `Fuzz/corpus`): a handful of small
/// files per format made by our own encoders, every file also seeding the sniffing and
/// incremental targets, and some cache keys for the file-name target.
@main
struct SeedCorpus {
    static func main() throws {
        let root = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? "Fuzz/corpus")
        var seeds: [(target: String, name: String, bytes: [UInt8])] = []
        for (name, bytes) in try jpegSeeds() { seeds.append(("jpeg", name, bytes)) }
        for (name, bytes) in try pngSeeds() { seeds.append(("png", name, bytes)) }
        for (name, bytes) in try gifSeeds() { seeds.append(("gif", name, bytes)) }
        for (name, bytes) in try webpSeeds() { seeds.append(("webp", name, bytes)) }
        for (name, text) in svgSeeds { seeds.append(("svg", name, Array(text.utf8))) }
        for (name, bytes) in iccSeeds() { seeds.append(("icc", name, bytes)) }
        for (name, bytes) in try avifSeeds() { seeds.append(("avif", name, bytes)) }
        for (name, bytes) in try fixtureSeeds(in: "avif") { seeds.append(("avif", name, bytes)) }
        for (name, bytes) in try fixtureSeeds(in: "heif") { seeds.append(("heif", name, bytes)) }
        for (name, bytes) in try jxlSeeds() { seeds.append(("jxl", name, bytes)) }
        for (name, bytes) in try fixtureSeeds(in: "jxl") { seeds.append(("jxl", name, bytes)) }
        for (name, bytes) in try tiffSeeds() { seeds.append(("tiff", name, bytes)) }
        for (name, bytes) in SeedBitmapLayouts.tiffSeeds() { seeds.append(("tiff", name, bytes)) }
        seeds.append(("bmpico", "bitfields-with-palette", [0] + SeedBitmapLayouts.bitFieldsBMP()))
        seeds.append(("bmpico", "v5-with-profile", [1] + SeedBitmapLayouts.versionFiveICO()))
        for (name, bytes) in try fixtureSeeds(in: "tiff") { seeds.append(("tiff", name, bytes)) }
        // bmpico: the first byte picks the coder (even: BMP, odd: ICO).
        for (name, bytes) in try fixtureSeeds(in: "bmp") { seeds.append(("bmpico", name, [0] + bytes)) }
        for (name, bytes) in try fixtureSeeds(in: "ico") { seeds.append(("bmpico", name, [1] + bytes)) }
        for image in seeds {
            let name = image.target + "-" + image.name
            seeds.append(("sniff", name, image.bytes))
            // Two chunkings per file: the prefix bytes seed the chunk-size generator.
            seeds.append(("incremental", name + "-a", [0x00, 0x01] + image.bytes))
            seeds.append(("incremental", name + "-b", [0xA7, 0x3C] + image.bytes))
        }
        for (index, key) in fileNameKeys.enumerated() { seeds.append(("filename", "key\(index)", Array(key.utf8))) }
        for (index, target) in requestTargets.enumerated() { seeds.append(("request", "target\(index)", Array(target.utf8))) }

        for seed in seeds {
            let folder = root.appendingPathComponent(seed.target)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(seed.bytes).write(to: folder.appendingPathComponent(seed.name))
        }
        print("seed-corpus: wrote \(seeds.count) files under \(root.path)")
    }

    static func encode(_ image: Image, _ format: ImageFormat, _ options: EncodeOptions = .default) throws -> [UInt8] {
        [UInt8](try CodersManager.shared.encode(image, as: format, options: options))
    }

    static func jpegSeeds() throws -> [(String, [UInt8])] {
        let picture = SeedPictures.gradient(45, 31)
        return [
            ("baseline-420", try SeedEncoders.jpeg(picture, subsampling: TJSAMP_420)),
            ("baseline-444", try SeedEncoders.jpeg(picture, subsampling: TJSAMP_444, quality: 95)),
            ("progressive", try SeedEncoders.jpeg(picture, subsampling: TJSAMP_420, progressive: true)),
            ("grayscale", try SeedEncoders.jpeg(picture, subsampling: TJSAMP_GRAY)),
            ("exif-rotated", SeedEncoders.withEXIF(try SeedEncoders.jpeg(picture, subsampling: TJSAMP_422), orientation: 6)),
            ("tiny", try SeedEncoders.jpeg(SeedPictures.gradient(1, 1), subsampling: TJSAMP_444)),
            ("library-encoder", try encode(Image(bitmap: SeedPictures.gradient(20, 70, alpha: true)), .jpeg)),
            ("display-p3", SeedEncoders.withICC(try SeedEncoders.jpeg(picture, subsampling: TJSAMP_420),
                                                [UInt8](ColorProfile.displayP3.iccData), chunkSize: 200)),
            ("icc-chunk-missing", SeedEncoders.withICC(try SeedEncoders.jpeg(picture, subsampling: TJSAMP_420),
                                                       [UInt8](ColorProfile.displayP3.iccData), chunkSize: 200,
                                                       dropLast: true)),
        ]
    }

    static func pngSeeds() throws -> [(String, [UInt8])] {
        let (w, h) = (23, 17)
        func header(_ colorType: spng_color_type, depth: UInt8 = 8, interlaced: Bool = false) -> spng_ihdr {
            spng_ihdr(width: UInt32(w), height: UInt32(h), bit_depth: depth, color_type: UInt8(colorType.rawValue),
                      compression_method: 0, filter_method: 0, interlace_method: interlaced ? 1 : 0)
        }
        let rgba = SeedPictures.gradient(w, h, alpha: true).pixels
        let pixelStarts = stride(from: 0, to: rgba.count, by: 4)
        let rgb: [UInt8] = pixelStarts.flatMap { (i: Int) -> ArraySlice<UInt8> in rgba[i..<i + 3] }
        let gray: [UInt8] = pixelStarts.map { (i: Int) -> UInt8 in rgba[i + 1] }
        let grayAlpha: [UInt8] = pixelStarts.flatMap { (i: Int) -> [UInt8] in [rgba[i + 1], rgba[i + 3]] }
        let rgb16: [UInt8] = rgb.flatMap { (v: UInt8) -> [UInt8] in [v, 255 - v] }
        let indices = (0..<(w * h)).map { UInt8($0 % 7) }
        let palette: [(UInt8, UInt8, UInt8)] = (0..<7).map { (i: Int) -> (UInt8, UInt8, UInt8) in
            (UInt8(i * 36), UInt8(200 - i * 20), UInt8(i * 9))
        }
        return [
            ("rgba", try encode(Image(bitmap: SeedPictures.gradient(w, h, alpha: true)), .png)),
            ("rgb", try SeedEncoders.png(header(SPNG_COLOR_TYPE_TRUECOLOR), samples: rgb)),
            ("rgb-interlaced", try SeedEncoders.png(header(SPNG_COLOR_TYPE_TRUECOLOR, interlaced: true), samples: rgb)),
            ("rgb16", try SeedEncoders.png(header(SPNG_COLOR_TYPE_TRUECOLOR, depth: 16), samples: rgb16)),
            ("gray", try SeedEncoders.png(header(SPNG_COLOR_TYPE_GRAYSCALE), samples: gray)),
            ("gray-alpha", try SeedEncoders.png(header(SPNG_COLOR_TYPE_GRAYSCALE_ALPHA), samples: grayAlpha)),
            ("palette-trns", try SeedEncoders.png(header(SPNG_COLOR_TYPE_INDEXED), samples: indices,
                                                 palette: palette, paletteAlpha: [0, 128, 255])),
            ("apng", try encode(SeedPictures.animation(19, 13, frames: 3, alpha: true, loopCount: 2), .apng)),
        ]
    }

    static func gifSeeds() throws -> [(String, [UInt8])] {
        [
            ("animated", try encode(SeedPictures.animation(21, 15, frames: 3, alpha: true, loopCount: 0), .gif)),
            ("still", try encode(Image(bitmap: SeedPictures.gradient(33, 9)), .gif)),
            ("interlaced", try SeedEncoders.gif(width: 17, height: 21, interlaced: true)),
            ("plain", try SeedEncoders.gif(width: 8, height: 5, interlaced: false)),
        ]
    }

    static func webpSeeds() throws -> [(String, [UInt8])] {
        let picture = Image(bitmap: SeedPictures.gradient(29, 21))
        let withAlpha = Image(bitmap: SeedPictures.gradient(29, 21, alpha: true))
        return [
            ("lossy", try encode(picture, .webp, EncodeOptions(compressionQuality: 0.7))),
            ("lossy-alpha", try encode(withAlpha, .webp, EncodeOptions(compressionQuality: 0.7))),
            ("lossless", try encode(withAlpha, .webp, EncodeOptions(lossless: true))),
            ("animated", try encode(SeedPictures.animation(17, 11, frames: 3, alpha: true, loopCount: 3), .webp,
                                    EncodeOptions(compressionQuality: 0.5))),
        ]
    }

    /// Small documents touching the parts of SVG that parse and draw differently: sizes in
    /// units, a viewBox alone, paths, gradients, text, transparency, an entity.
    static let svgSeeds = [
        ("sized", #"<svg xmlns="http://www.w3.org/2000/svg" width="12mm" height="8"><rect width="5" height="5" fill="red"/></svg>"#),
        ("viewbox", #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M2 2L22 12L2 22z" fill-opacity=".5"/></svg>"#),
        ("gradient", ##"<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><defs><linearGradient id="g"><stop offset="0" stop-color="#0f0"/><stop offset="1" stop-color="#00f" stop-opacity="0"/></linearGradient></defs><circle cx="10" cy="10" r="9" fill="url(#g)" transform="rotate(30 10 10)"/></svg>"##),
        ("text", #"<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY t "hi">]><svg xmlns="http://www.w3.org/2000/svg" width="30" height="10"><text y="9" font-size="8">&t;</text></svg>"#),
    ]
    /// Profiles for the `icc` target, each after the two bytes that steer its container.
    static func iccSeeds() -> [(String, [UInt8])] {
        let p3 = [UInt8](ColorProfile.displayP3.iccData), srgb = [UInt8](ColorProfile.sRGB.iccData)
        return [
            ("p3-rgb", [0, 0] + p3),
            ("p3-gray-chunked", [1, 3] + p3),
            ("srgb-cmyk", [2, 0] + srgb),
            ("p3-truncated", [0, 0x41] + Array(p3.prefix(p3.count / 2))),
            ("p3-chunk-missing", [0, 0x42] + p3),
            ("garbage", [0, 0] + [0, 0, 1, 0] + [UInt8](repeating: 0x5A, count: 252)),
        ]
    }

    static func tiffSeeds() throws -> [(String, [UInt8])] {
        [
            ("library-rgb", try encode(Image(bitmap: SeedPictures.gradient(29, 21)), .tiff)),
            ("library-rgba", try encode(Image(bitmap: SeedPictures.gradient(23, 17, alpha: true)), .tiff)),
        ]
    }

    static func avifSeeds() throws -> [(String, [UInt8])] {
        let picture = Image(bitmap: SeedPictures.gradient(29, 21))
        let withAlpha = Image(bitmap: SeedPictures.gradient(29, 21, alpha: true))
        return [
            ("library-lossy", try encode(picture, .avif, EncodeOptions(compressionQuality: 0.5))),
            ("library-alpha", try encode(withAlpha, .avif, EncodeOptions(compressionQuality: 0.5))),
            ("library-lossless", try encode(withAlpha, .avif, EncodeOptions(lossless: true))),
        ]
    }

    static func jxlSeeds() throws -> [(String, [UInt8])] {
        let picture = Image(bitmap: SeedPictures.gradient(29, 21))
        let withAlpha = Image(bitmap: SeedPictures.gradient(29, 21, alpha: true))
        return [
            ("library-lossy", try encode(picture, .jpegXL, EncodeOptions(compressionQuality: 0.5))),
            ("library-alpha", try encode(withAlpha, .jpegXL, EncodeOptions(compressionQuality: 0.5))),
            ("library-lossless", try encode(withAlpha, .jpegXL, EncodeOptions(lossless: true))),
        ]
    }

    /// The test fixtures Debian's tools made (Tests/Fixtures/<folder>, run from the repository
    /// root): avifenc's bit depths, grid, sequence and orientations; heif-enc's HEIC files and
    /// the damaged copies; cjxl's stills, container and animation; Pillow's, tiffcp's and libvips'
    /// TIFF, BMP and ICO files.
    static func fixtureSeeds(in folder: String) throws -> [(String, [UInt8])] {
        let directory = URL(fileURLWithPath: "Tests/Fixtures").appendingPathComponent(folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let extensions: Set = ["avif", "heic", "heif", "jxl", "tif", "bmp", "ico"]
        return try names.filter { extensions.contains(URL(fileURLWithPath: $0).pathExtension) }.map { name in
            ("tools-" + name, [UInt8](try Data(contentsOf: directory.appendingPathComponent(name))))
        }
    }

    /// Request targets of `webimage serve`: ordinary ones, and the hostile shapes the planner bounds.
    static let requestTargets = [
        "/insecure/rs:fit:300:200/plain/http://example.com/a.jpg@webp",
        "/insecure/rs:fill:100:100:1/g:sm/q:80/plain/http%3A%2F%2Fexample.com%2Fa.png",
        "/insecure/s:100000:100000:0:1/plain/http://127.0.0.1:99999/x.jpg",
        "/insecure/rs:fit:2147483647:2147483647:0:1/plain/http://example.com/a.jpg",
        "/insecure/el:1/dpr:1e300/z:1e300/mw:99999999/pd:99999:1:1:1/plain/http://example.com/a.jpg",
        "/insecure/c:1e300:1e300/rot:270/ex:1/exar:1/msr:1e13/plain/http://example.com/a.gif",
        "/insecure/pr:small/w:50/aHR0cDovL2V4YW1wbGUuY29tL2EuanBn.png",
        "/unsafe/x/plain/http://example.com/a.jpg?query=1",
    ]

    static let fileNameKeys = [
        "https://example.com/images/photo.jpg",
        "https://example.com/a/b/c.PNG?size=large#frag",
        "https://example.com/no-extension",
        "http://example.com/weird.ext%2F..%2Fpasswd",
        "relative/path/file.tar.gz",
        "plain key with spaces.web p",
        "https://例え.jp/画像.ｊｐｇ",
        "file:///tmp/x.gif",
        "",
        "https://example.com/" + String(repeating: "e", count: 230) + "." + String(repeating: "x", count: 223),
    ]
}
