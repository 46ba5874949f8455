# SPDX-License-Identifier: GPL-2.0
#
# faults.sh's TX fault cases on a ConnectX-4+ adapter: mlx5 error CQEs
# (MLX5_CQE_REQ_ERR), lost 64-byte CQEs and interrupts, lost 8-byte
# doorbells with the doorbell record already written. Enhanced MPWQE
# stays on (the cx5 default): at burst 1 every session is one packet, so
# the per-packet accounting of faults.sh holds unchanged.
FAULTS_GEN=cx5
set -- err_cqe_next err_cqe_every lose_cqe lose_irq lose_doorbell_next \
	lose_doorbell_opt
. /cxbell/tests/faults.sh
