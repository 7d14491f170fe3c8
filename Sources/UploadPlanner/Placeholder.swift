/// Placeholder until the planner lands.
enum UploadPlannerPlaceholder {}
