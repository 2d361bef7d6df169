public enum WirePlaceholder {}
