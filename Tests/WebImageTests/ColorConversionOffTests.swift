import Foundation
import Testing
@testable import WebImageCodecs

/// With conversion off the pixels keep the source's colours and the profile stays on the image.
@Suite("Colour: conversion off")
struct ColorConversionOffTests {
    let off = DecodeOptions(convertsToSRGB: false)

    @Test func pngKeepsItsPixelsAndProfile() throws {
        let image = try PNGCoder().decode(ColorFixtures.taggedPNG(), options: off)
        #expect(image.bitmap == ColorFixtures.solid())
        #expect(image.colorProfile?.iccData == ColorFixtures.displayP3)
        #expect(image.colorProfile?.description == "Test Display P3")
    }

    @Test func jpegKeepsItsPixelsAndProfile() throws {
        let data = try ColorFixtures.taggedJPEG()
        let image = try JPEGCoder().decode(data, options: off)
        let untagged = try JPEGCoder().decode(try ColorFixtures.taggedJPEG(icc: nil), options: .default)
        #expect(image.bitmap == untagged.bitmap)
        #expect(image.colorProfile?.iccData == ColorFixtures.displayP3)
    }

    @Test func webpKeepsItsPixelsAndProfile() throws {
        let image = try WebPCoder().decode(try ColorFixtures.taggedWebP(), options: off)
        #expect(image.bitmap == ColorFixtures.solid())
        #expect(image.colorProfile?.description == "Test Display P3")
    }
}
