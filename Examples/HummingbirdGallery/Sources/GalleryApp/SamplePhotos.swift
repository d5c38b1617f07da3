import Foundation
import WebImage

/// A few pictures made with the library's encoders, so that the gallery shows something with
/// no folder of one's own: each a ball off the centre of a plain gradient (a smart crop keeps it).
public enum SamplePhotos {
    /// The files written, by name, with their pixel size.
    public static let files: [(name: String, format: ImageFormat, size: PixelSize)] = [
        ("harbour.jpg", .jpeg, PixelSize(width: 1600, height: 1000)),
        ("meadow.png", .png, PixelSize(width: 900, height: 1200)),
        ("dunes.webp", .webp, PixelSize(width: 1200, height: 800)),
        ("glacier.avif", .avif, PixelSize(width: 800, height: 800)),
    ]

    /// Writes ``files`` into `folder` (created if needed).
    public static func write(to folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, file) in files.enumerated() {
            let bitmap = picture(file.size, hue: index)
            let data = try CodersManager.shared.encode(Image(bitmap: bitmap), as: file.format,
                                                       options: EncodeOptions(compressionQuality: 0.85))
            try data.write(to: folder.appendingPathComponent(file.name))
        }
    }

    /// A vertical gradient with a bright ball in the right-hand third.
    static func picture(_ size: PixelSize, hue: Int) -> Bitmap {
        let (width, height) = (size.width, size.height)
        let ballX = Double(width) * 0.78, ballY = Double(height) * 0.4, radius = Double(min(width, height)) * 0.12
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            let t = Double(y) / Double(height)
            for x in 0..<width {
                let dx = Double(x) - ballX, dy = Double(y) - ballY
                let inBall = dx * dx + dy * dy < radius * radius
                let i = (y * width + x) * 4
                if inBall {
                    pixels[i] = 250; pixels[i + 1] = UInt8(60 + hue * 40); pixels[i + 2] = 40
                } else {
                    pixels[i] = UInt8(40 + 60 * t); pixels[i + 1] = UInt8(70 + 80 * t); pixels[i + 2] = UInt8(110 + hue * 30)
                }
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }
}
