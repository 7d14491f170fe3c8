import CFFmpeg

/// The display-matrix rotation, as clockwise quarter turns the viewer applies.
enum VideoRotation {
    static func clockwiseDegrees(stream: UnsafeMutablePointer<AVStream>) -> Int {
        guard let matrix = cff_display_matrix(stream), let util = try? FFmpegLibraries.util() else { return 0 }
        let ccw = util.av_display_rotation_get(matrix)
        guard ccw.isFinite else { return 0 }
        // av_display_rotation_get is counter-clockwise; players turn the frame by its negation.
        let cw = Int((-ccw / 90).rounded()) * 90
        return ((cw % 360) + 360) % 360
    }

    static func orientation(clockwise: Int) -> ExifOrientation {
        switch clockwise {
        case 90: return .right
        case 180: return .down
        case 270: return .left
        default: return .up
        }
    }
}
