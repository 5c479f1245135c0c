#!/bin/bash
# xpbd-strain against xpbd and pbd on the compound gravity scene at N = 2; closed form alpha_dev = (1+nu)/E, alpha_vol = 3(1-2nu)/E
b=${PBDFIT_CLI:-$(dirname "$0")/../../target/release/pbdfit}
for s in "1e3 0.3 0.01 1" "1e5 0.3 0.001 32" "1e4 0.45 0.01 10" "1e6 0.2 0.001 4"; do
  set -- $s; E=$1; nu=$2; dt=$3; nit=$4
  ad=$(python3 -c "print((1+$nu)/$E)"); av=$(python3 -c "print(3*(1-2*$nu)/$E)")
  lo=$(python3 -c "print($ad*0.9999)"); hi=$(python3 -c "print($ad*1.0001)"); lo2=$(python3 -c "print($av*0.9999)"); hi2=$(python3 -c "print($av*1.0001)")
  for m in pbd xpbd xpbd-strain; do
    r=$($b fit --scene gravity --n 2 --young $E --poisson $nu --dt $dt --nit $nit --model $m --json 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); print(d['error'], d['parameters'])")
    echo "E=$E nu=$nu dt=$dt nit=$nit $m fit: $r"
  done
  r=$($b fit --scene gravity --n 2 --young $E --poisson $nu --dt $dt --nit $nit --model xpbd-strain --box alpha_dev=$lo:$hi --box alpha_vol=$lo2:$hi2 --json 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); print(d['error'], d['parameters'])")
  echo "E=$E nu=$nu dt=$dt nit=$nit xpbd-strain closed form ($ad, $av): $r"
done
