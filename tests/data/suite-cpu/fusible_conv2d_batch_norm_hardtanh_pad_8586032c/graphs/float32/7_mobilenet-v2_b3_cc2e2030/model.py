import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_layer_modules_0_modules_expand_1x1_modules_convolution_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_mean_: torch.Tensor, L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_var_: torch.Tensor, L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_bias_: torch.nn.parameter.Parameter, pad_3: torch.Tensor):
        l_self_modules_layer_modules_0_modules_expand_1x1_modules_convolution_parameters_weight_ = L_self_modules_layer_modules_0_modules_expand_1x1_modules_convolution_parameters_weight_
        l_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_mean_ = L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_mean_
        l_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_var_ = L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_var_
        l_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_weight_ = L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_weight_
        l_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_bias_ = L_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_bias_
        conv2d_3 = torch.conv2d(pad_3, l_self_modules_layer_modules_0_modules_expand_1x1_modules_convolution_parameters_weight_, None, (1, 1), (0, 0), (1, 1), 1);  pad_3 = l_self_modules_layer_modules_0_modules_expand_1x1_modules_convolution_parameters_weight_ = None
        batch_norm_3 = torch.nn.functional.batch_norm(conv2d_3, l_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_mean_, l_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_var_, l_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_weight_, l_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_bias_, False, 0.997, 0.001);  conv2d_3 = l_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_mean_ = l_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_buffers_running_var_ = l_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_weight_ = l_self_modules_layer_modules_0_modules_expand_1x1_modules_normalization_parameters_bias_ = None
        hardtanh_2 = torch.nn.functional.hardtanh(batch_norm_3, 0.0, 6.0, False);  batch_norm_3 = None
        pad_4 = torch._C._nn.pad(hardtanh_2, (0, 1, 0, 1), 'constant', 0.0);  hardtanh_2 = None
        return (pad_4,)
