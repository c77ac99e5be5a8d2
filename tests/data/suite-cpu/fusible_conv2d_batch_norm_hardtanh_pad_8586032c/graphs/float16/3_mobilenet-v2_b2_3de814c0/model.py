import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_self_modules_layer_modules_2_modules_conv_3x3_modules_convolution_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_mean_: torch.Tensor, L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_var_: torch.Tensor, L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_bias_: torch.nn.parameter.Parameter, pad_10: torch.Tensor):
        l_self_modules_layer_modules_2_modules_conv_3x3_modules_convolution_parameters_weight_ = L_self_modules_layer_modules_2_modules_conv_3x3_modules_convolution_parameters_weight_
        l_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_mean_ = L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_mean_
        l_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_var_ = L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_var_
        l_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_weight_ = L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_weight_
        l_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_bias_ = L_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_bias_
        conv2d_10 = torch.conv2d(pad_10, l_self_modules_layer_modules_2_modules_conv_3x3_modules_convolution_parameters_weight_, None, (2, 2), (0, 0), (1, 1), 48);  pad_10 = l_self_modules_layer_modules_2_modules_conv_3x3_modules_convolution_parameters_weight_ = None
        batch_norm_10 = torch.nn.functional.batch_norm(conv2d_10, l_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_mean_, l_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_var_, l_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_weight_, l_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_bias_, False, 0.997, 0.001);  conv2d_10 = l_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_mean_ = l_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_buffers_running_var_ = l_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_weight_ = l_self_modules_layer_modules_2_modules_conv_3x3_modules_normalization_parameters_bias_ = None
        hardtanh_7 = torch.nn.functional.hardtanh(batch_norm_10, 0.0, 6.0, False);  batch_norm_10 = None
        pad_11 = torch._C._nn.pad(hardtanh_7, (0, 0, 0, 0), 'constant', 0.0);  hardtanh_7 = None
        return (pad_11,)
