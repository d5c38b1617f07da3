import CGIF
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("GIF bad input")
struct GIFBadInputTests {
    let coder = GIFCoder()
    typealias Frame = GIFFixtures.Frame

    private func code(of data: Data, options: DecodeOptions = .default) -> WebImageError.Code? {
        do {
            _ = try coder.decode(data, options: options)
            return nil
        } catch let error as WebImageError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test func hugeScreenIsRefusedFromTheHeader() {
        let gif = GIFFixtures.oversizedFrame(width: 65535, height: 65535, frameWidth: 1, frameHeight: 1)
        #expect(code(of: gif) == .imageTooLarge)
    }

    @Test func hugeFrameInASmallScreenIsRefused() {
        let gif = GIFFixtures.oversizedFrame(width: 10, height: 10, frameWidth: 65535, frameHeight: 65535)
        #expect(code(of: gif) == .imageTooLarge)
    }

    @Test func tooManyFramesAreRefused() {
        let frames = (0..<5).map { Frame.solid(UInt8($0 % 4), width: 2, height: 2) }
        let gif = GIFFixtures.make(width: 2, height: 2, frames: frames)
        #expect(code(of: gif, options: DecodeOptions(limits: DecodeLimits(maxFrames: 3))) == .imageTooLarge)
        // The byte limit bounds frames held at once: every frame decoded now is refused, a lazy
        // decode holds one frame and may play them all.
        let small = DecodeLimits(maxTotalBytes: 2 * 2 * 4 * 4)
        #expect(code(of: gif, options: DecodeOptions(limits: small, preloadsAllFrames: true)) == .imageTooLarge)
        let lazy = try? GIFCoder().decode(gif, options: DecodeOptions(limits: small))
        #expect(lazy?.frameCount == 5)
        #expect(throws: WebImageError.self) { try lazy?.allFrames() }
        #expect(throws: WebImageError.self) { try lazy?.preloadAllFrames() }
    }

    @Test func emptyAndRandomDataAreBad() {
        #expect(code(of: Data()) == .badImageData)
        #expect(code(of: TestBitmaps.noise(count: 2048, seed: 7)) == .badImageData)
        #expect(code(of: Data("GIF89a".utf8)) == .badImageData)
        var garbage = Data("GIF89a".utf8) + Data([8, 0, 8, 0, 0x80, 0, 0])
        garbage += TestBitmaps.noise(count: 600, seed: 3)
        #expect(code(of: garbage) == .badImageData)
    }

    @Test func truncatedFirstFrameIsBad() {
        let gif = GIFFixtures.make(width: 16, height: 16, frames: [Frame.solid(1, width: 16, height: 16)])
        for cut in [13, 20, 30, gif.count - 4] {
            #expect(code(of: gif.prefix(cut)) == .badImageData, "cut at \(cut)")
        }
    }

    @Test func truncationAfterAFrameKeepsTheCompleteFrames() throws {
        let frames = (1...3).map { Frame.solid(UInt8($0), width: 16, height: 16) }
        let gif = GIFFixtures.make(width: 16, height: 16, frames: frames, loopCount: 0)
        let two = GIFFixtures.make(width: 16, height: 16, frames: Array(frames.prefix(2)), loopCount: 0)
        // Everything of the first two frames, then part of the third.
        let cut = gif.prefix(two.count + 8)
        let image = try coder.decode(cut, options: .default)
        #expect(image.frames.count == 2)
        #expect(image.loopCount == 0)
        #expect(image.frames[1].bitmap.pixel(x: 8, y: 8) == TestBitmaps.green)
        // Missing only the trailer byte: all three frames.
        #expect(try coder.decode(gif.dropLast(), options: .default).frames.count == 3)
    }

    @Test func randomDamageNeverCrashes() {
        let frames = (1...3).map { Frame.solid(UInt8($0), width: 16, height: 16) }
        let gif = [UInt8](GIFFixtures.make(width: 16, height: 16, frames: frames, loopCount: 0))
        let noise = [UInt8](TestBitmaps.noise(count: 400, seed: 11))
        for trial in 0..<100 {
            var damaged = gif
            for k in 0..<4 {
                let at = 13 + Int(noise[trial * 4 + k]) * (damaged.count - 13) / 256
                damaged[at] = noise[(trial * 4 + k + 1) % noise.count]
            }
            if let image = try? coder.decode(Data(damaged), options: .default) {
                #expect(image.pixelSize.width > 0)
            }
        }
    }
}
