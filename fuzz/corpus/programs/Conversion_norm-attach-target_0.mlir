module attributes {gpu.container_module} {
  gpu.module @a {
  }
  gpu.module @b [#nvvm.target<chip = "sm_90", features = "+ptx81">] {
  }
  gpu.module @c [#nvvm.target<O = 3>] {
  }
}
