func.func @f(%a: i32, %b: f32) -> (i32, f32) {
  %0 = arith.addi %a, %a overflow<nuw, nsw> : i32
  %1 = arith.addf %b, %b fastmath<afn,nnan,reassoc,ninf,nsz,arcp,contract> : f32
  %2 = arith.addf %b, %b fastmath<ninf,nnan> : f32
  return %0, %1 : i32, f32
}
