/// The SPEC §6 score computed in-process: SSIM of luma (7×7 uniform window, sample covariance,
/// K1 0.01, K2 0.03 — scikit-image's defaults), used to choose between candidate sizes.
enum SSIM {
    /// Pillow's "L" conversion (ITU-R 601-2 luma), so our numbers track quality.py.
    static func luma(_ p: PixelBuffer) -> [Float] {
        let n = p.pixelCount
        var out = [Float](repeating: 0, count: n)
        p.bytes.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                switch p.layout {
                case .gray:
                    for i in 0..<n { d[i] = Float(s[i]) }
                case .rgb, .rgba, .rgbx:
                    let c = p.layout.channels
                    for i in 0..<n {
                        let r = Int(s[i * c]), g = Int(s[i * c + 1]), b = Int(s[i * c + 2])
                        d[i] = Float((r * 299 + g * 587 + b * 114 + 500) / 1000)
                    }
                }
            }
        }
        return out
    }

    /// Mean SSIM of two same-size luma planes, over the valid (unpadded) region.
    static func mean(_ x: [Float], _ y: [Float], width w: Int, height h: Int) -> Double {
        let win = 7, r = 3
        guard w > win, h > win, x.count == w * h, y.count == w * h else { return x == y ? 1 : 0 }
        let c1: Float = (0.01 * 255) * (0.01 * 255), c2: Float = (0.03 * 255) * (0.03 * 255)
        let np = Float(win * win), covNorm = np / (np - 1)
        // Horizontal 7-tap sums of x, y, x², y², xy, then vertical sums over those.
        let ow = w - 2 * r
        var hs = [[Float]](repeating: [Float](repeating: 0, count: ow * h), count: 5)
        x.withUnsafeBufferPointer { xp in
            y.withUnsafeBufferPointer { yp in
                for row in 0..<h {
                    let base = row * w
                    var sx: Float = 0, sy: Float = 0, sxx: Float = 0, syy: Float = 0, sxy: Float = 0
                    for k in 0..<win {
                        let a = xp[base + k], b = yp[base + k]
                        sx += a; sy += b; sxx += a * a; syy += b * b; sxy += a * b
                    }
                    for col in 0..<ow {
                        let o = row * ow + col
                        hs[0][o] = sx; hs[1][o] = sy; hs[2][o] = sxx; hs[3][o] = syy; hs[4][o] = sxy
                        if col + win < w {
                            let a0 = xp[base + col], b0 = yp[base + col]
                            let a1 = xp[base + col + win], b1 = yp[base + col + win]
                            sx += a1 - a0; sy += b1 - b0
                            sxx += a1 * a1 - a0 * a0; syy += b1 * b1 - b0 * b0; sxy += a1 * b1 - a0 * b0
                        }
                    }
                }
            }
        }
        let oh = h - 2 * r
        var total = 0.0
        var sums = [Float](repeating: 0, count: 5 * ow)
        for k in 0..<win { for c in 0..<5 { for col in 0..<ow { sums[c * ow + col] += hs[c][k * ow + col] } } }
        for row in 0..<oh {
            var rowTotal: Float = 0
            for col in 0..<ow {
                let mx = sums[col] / np, my = sums[ow + col] / np
                let vx = covNorm * (sums[2 * ow + col] / np - mx * mx)
                let vy = covNorm * (sums[3 * ow + col] / np - my * my)
                let vxy = covNorm * (sums[4 * ow + col] / np - mx * my)
                let num = (2 * mx * my + c1) * (2 * vxy + c2)
                let den = (mx * mx + my * my + c1) * (vx + vy + c2)
                rowTotal += num / den
            }
            total += Double(rowTotal)
            if row + 1 < oh {
                for c in 0..<5 {
                    for col in 0..<ow { sums[c * ow + col] += hs[c][(row + win) * ow + col] - hs[c][row * ow + col] }
                }
            }
        }
        return total / Double(ow * oh)
    }
}
