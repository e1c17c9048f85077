"""A thin-plate-spline grid generator (fiducial points from linspace/stack, pairwise distances
with norm, the TPS system solved by inverse, a tensor filled by item assignment in Python
loops) whose affine part is predicted by a Linear layer from the input batch."""
import numpy as np

import dy2st as paddle
from tests.support import check_model

POINTS, H, W = 6, 4, 5


class TpsGrid(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.eps = 1e-6
        self.fc = paddle.nn.Linear(POINTS * 2, POINTS * 2)

    def fiducials(self):
        xs = paddle.linspace(-1.0, 1.0, POINTS // 2)
        top = paddle.stack([xs, -1 * paddle.ones([POINTS // 2])], axis=1)
        bottom = paddle.stack([xs, paddle.ones([POINTS // 2])], axis=1)
        return paddle.concat([top, bottom], axis=0)

    def inverse_system(self, C):
        k = paddle.zeros((POINTS, POINTS), dtype="float32")
        for i in range(POINTS):
            for j in range(i, POINTS):
                if i == j:
                    k[i, j] = 1
                else:
                    r = paddle.norm(C[i] - C[j])
                    k[i, j] = r
                    k[j, i] = r
        k = (k ** 2) * paddle.log(k)
        system = paddle.concat([
            paddle.concat([paddle.ones((POINTS, 1)), C, k], axis=1),
            paddle.concat([paddle.zeros((2, 3)), paddle.transpose(C, perm=[1, 0])], axis=1),
            paddle.concat([paddle.zeros((1, 3)), paddle.ones((1, POINTS))], axis=1)], axis=0)
        return paddle.inverse(system)

    def grid_points(self):
        gx = (paddle.arange(-W, W, 2).astype("float32") + 1.0) / W
        gy = (paddle.arange(-H, H, 2).astype("float32") + 1.0) / H
        P = paddle.transpose(paddle.stack(paddle.meshgrid(gx, gy), axis=2), perm=[1, 0, 2])
        return P.reshape([-1, 2])

    def lifted(self, C, P):
        diff = paddle.tile(paddle.unsqueeze(P, axis=1), (1, POINTS, 1)) - paddle.unsqueeze(C, axis=0)
        r = paddle.norm(diff, p=2, axis=2, keepdim=False)
        rbf = paddle.multiply(paddle.square(r), paddle.log(r + self.eps))
        return paddle.concat([paddle.ones((P.shape[0], 1)), P, rbf], axis=1)

    def forward(self, moved):
        C = self.fiducials()
        target = paddle.reshape(C, [1, -1]) + 0.1 * paddle.tanh(self.fc(paddle.reshape(moved, [-1, POINTS * 2])))
        target = paddle.reshape(target, [-1, POINTS, 2])
        target = paddle.concat([target, paddle.zeros_like(target[:, :3, :])], axis=1)
        T = paddle.matmul(paddle.unsqueeze(self.inverse_system(C), 0), target)
        return paddle.matmul(paddle.unsqueeze(self.lifted(C, self.grid_points()), 0), T)


def grid_data(batch):
    return [np.random.default_rng(batch).uniform(-1, 1, (batch, POINTS, 2)).astype("float32")]


def test_tps_grid_generator(tmp_path):
    check_model(TpsGrid, grid_data, [([None, POINTS, 2], "float32")], tmp_path,
                rtol=1e-4, atol=1e-5, loss_of=lambda grid: paddle.mean(paddle.abs(grid)))


def test_tps_grid_passes_through_the_fiducials():
    # with an identity mapping the grid evaluated at the fiducials returns them (TPS interpolates)
    paddle.seed(0)
    net = TpsGrid()
    C = net.fiducials()
    T = paddle.matmul(net.inverse_system(C), paddle.concat([C, paddle.zeros([3, 2])], axis=0))
    back = paddle.matmul(net.lifted(C, C), T)
    np.testing.assert_allclose(back.numpy(), C.numpy(), atol=1e-4)
